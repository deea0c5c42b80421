/**
 * Custom commands of the `command` service (spec 2 §4.4 behaviour 4): the
 * text is split into arguments the way a POSIX shell splits words (single
 * and double quotes, backslash escapes) and run without a shell -- so shell
 * syntax (`;`, `&&`, `|`, redirections, `$...`, globs) is refused rather than
 * passed on literally as an argument, which would surprise whoever typed it
 * (the admin page of the original sent `a && b`, which its `shlex.split`
 * turned into arguments). Then a blacklist of dangerous operations is
 * applied to the argument vector, not to substrings of the text, so
 * `rm -r -f /` is caught like `rm -rf /`.
 *
 * @module
 */

/** Longest custom command accepted. */
export const MAX_COMMAND_LENGTH = 2000;

/** Most arguments. */
export const MAX_ARGS = 128;

/** A refused command and why (the `message` of the 400 answer). */
export class CommandRefused extends Error {
  override readonly name = "CommandRefused";
}

/** Characters that mean something to a shell outside quotes. */
const SHELL_SYNTAX = new Set([
  ";",
  "&",
  "|",
  "<",
  ">",
  "(",
  ")",
  "$",
  "`",
  "*",
  "?",
  "[",
  "]",
  "{",
  "}",
  "~",
  "!",
  "#",
]);

/** Splits `text` into arguments; throws {@link CommandRefused} for shell syntax or bad quoting. */
export function splitCommand(text: string): string[] {
  if (text.length > MAX_COMMAND_LENGTH) {
    throw new CommandRefused(`Command longer than ${MAX_COMMAND_LENGTH} characters`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(text)) throw new CommandRefused("Command contains control characters");
  const args: string[] = [];
  let current = "";
  let inWord = false;
  let i = 0;
  const syntax = (c: string) =>
    new CommandRefused(`Shell syntax is not supported (commands run without a shell): ${JSON.stringify(c)}`);
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") {
      if (inWord) args.push(current);
      current = "";
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new CommandRefused("Unterminated single quote");
      current += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      inWord = true;
      for (;;) {
        if (i >= text.length) throw new CommandRefused("Unterminated double quote");
        const d = text[i]!;
        if (d === '"') break;
        if (d === "$" || d === "`") throw syntax(d);
        if (d === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) {
          current += text[i + 1];
          i += 2;
        } else {
          current += d;
          i++;
        }
      }
      i++;
    } else if (c === "\\") {
      if (i + 1 >= text.length) throw new CommandRefused("Trailing backslash");
      current += text[i + 1];
      inWord = true;
      i += 2;
    } else if (SHELL_SYNTAX.has(c) && !(c === "#" && inWord) && !(c === "~" && inWord)) {
      throw syntax(c);
    } else {
      current += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) args.push(current);
  if (args.length === 0) throw new CommandRefused("Custom command required");
  if (args.length > MAX_ARGS) throw new CommandRefused(`More than ${MAX_ARGS} arguments`);
  return args;
}

function base(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

const AS_OTHER_USER = new Set(["sudo", "su", "doas", "pkexec", "runuser"]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "ash"]);
const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "perl",
  "ruby",
  "node",
  "deno",
  "php",
  "lua",
  "osascript",
]);
const ALWAYS = new Set([
  "shutdown",
  "halt",
  "poweroff",
  "reboot",
  "kexec",
  "fdisk",
  "sfdisk",
  "cfdisk",
  "gdisk",
  "sgdisk",
  "parted",
  "wipefs",
  "mke2fs",
  "mkswap",
  "blkdiscard",
  "eval",
  "exec",
  "source",
  "awk",
  "gawk",
  "mawk",
  "nawk",
]);
/** Programs that run another program given in their arguments. */
const WRAPPERS = new Set([
  "env",
  "nice",
  "nohup",
  "timeout",
  "ionice",
  "stdbuf",
  "setsid",
  "chrt",
  "taskset",
  "time",
  "xargs",
  "command",
  "builtin",
  "watch",
  "flock",
  "chroot",
  "unshare",
  "nsenter",
  "systemd-run",
  "script",
  "strace",
  "find",
]);
const SYSTEMCTL_BAD = new Set(["poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "suspend", "hibernate"]);

/** Whether `flags` (e.g. `-rf`, `--recursive`) ask for recursion. */
function recursive(args: readonly string[]): boolean {
  return args.some((a) => a === "--recursive" || /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(a));
}

/** A path that means the root directory or everything in it. */
function isRoot(path: string): boolean {
  return /^\/+(\.\/*)*\*?$/.test(path) || /^\/+\*$/.test(path);
}

/** Why `argv` is dangerous, or null when it may run. */
export function dangerReason(argv: readonly string[]): string | null {
  const program = base(argv[0] ?? "");
  const args = argv.slice(1);
  if (AS_OTHER_USER.has(program)) return "runs a command as another user";
  if (ALWAYS.has(program) || program.startsWith("mkfs")) return `${program} is not allowed`;
  if (SHELLS.has(program) && args.some((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command")) {
    return "inline shell code is not allowed; add an alias instead";
  }
  if (INTERPRETERS.has(program) && args.some((a) => /^-[a-zA-Z]*[ceE][a-zA-Z]*$/.test(a) || a === "eval")) {
    return "inline code is not allowed; add an alias instead";
  }
  if ((program === "init" || program === "telinit") && args.some((a) => /^[06sS]$/.test(a))) {
    return "changing the run level is not allowed";
  }
  if (program === "systemctl" && args.some((a) => SYSTEMCTL_BAD.has(a))) return "stopping the machine is not allowed";
  if (program === "dd" && args.some((a) => /^(if|of)=\/dev\//.test(a))) return "dd on a device is not allowed";
  if (program === "rm") {
    if (args.includes("--no-preserve-root")) return "rm --no-preserve-root is not allowed";
    if (recursive(args) && args.some(isRoot)) return "recursive deletion of the root directory is not allowed";
  }
  if ((program === "chmod" || program === "chown" || program === "chgrp") && args.some(isRoot)) {
    return `${program} on the root directory is not allowed`;
  }
  if (program === "mv" && args.some(isRoot)) return "moving the root directory is not allowed";
  if (WRAPPERS.has(program)) {
    if (program === "find" && args.some((a) => a === "-delete" || a.startsWith("-exec") || a.startsWith("-ok"))) {
      return "find with -delete or -exec is not allowed";
    }
    for (let i = 0; i < args.length; i++) {
      const inner = dangerReason(args.slice(i));
      if (inner) return inner;
    }
  }
  return null;
}

/** Splits and checks a custom command: its argument vector, or {@link CommandRefused}. */
export function customCommand(text: string): string[] {
  const argv = splitCommand(text.trim());
  const reason = dangerReason(argv);
  if (reason) throw new CommandRefused(`Dangerous command blocked: ${reason}`);
  return argv;
}
