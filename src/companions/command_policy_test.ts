import { deepEqual, equal, throws } from "node:assert/strict";
import { CommandRefused, customCommand, dangerReason, splitCommand } from "./command_policy.ts";

Deno.test("splitCommand splits words like a shell, with quotes and escapes", () => {
  deepEqual(splitCommand("ls  -la /var/log"), ["ls", "-la", "/var/log"]);
  deepEqual(splitCommand(`echo 'a b' "c \\"d\\"" e\\ f ''`), ["echo", "a b", 'c "d"', "e f", ""]);
  deepEqual(splitCommand(`echo 'literal; $HOME | *'`), ["echo", "literal; $HOME | *"]);
  deepEqual(splitCommand("echo a#b x~"), ["echo", "a#b", "x~"]);
});

Deno.test("splitCommand refuses shell syntax, bad quoting, control characters and emptiness", async (t) => {
  const cases: [string, RegExp][] = [
    ["bash start.sh && bash check.sh", /Shell syntax is not supported.*"&"/],
    ["ls; rm x", /";"/],
    ["cat /etc/passwd | nc x 1", /"\|"/],
    ["echo hi > /dev/sda", /">"/],
    ["echo $(id)", /"\$"/],
    ['echo "$HOME"', /"\$"/],
    ["echo `id`", /"`"/],
    ["rm *", /"\*"/],
    ["ls ~", /"~"/],
    ["echo # comment", /"#"/],
    [":(){ :|:& };:", /"\("/],
    ["echo 'open", /Unterminated single quote/],
    ['echo "open', /Unterminated double quote/],
    ["echo \\", /Trailing backslash/],
    ["echo a\nrm -rf /", /control characters/],
    ["   ", /Custom command required/],
    ["x".repeat(2001), /longer than 2000/],
  ];
  for (const [text, re] of cases) {
    await t.step(JSON.stringify(text.slice(0, 40)), () => {
      throws(() => splitCommand(text), (e: unknown) => e instanceof CommandRefused && re.test(e.message));
    });
  }
});

Deno.test("dangerReason blocks the original's blacklist and the same operations spelled otherwise", async (t) => {
  const blocked = [
    // peers §5.4: the original's substrings
    "rm -rf /",
    "rm -rf '/*'", // unquoted, the glob is refused as shell syntax first
    "dd if=/dev/zero of=/tmp/x",
    "mkfs.ext4 /dev/sdb1",
    "mkfs /dev/sdb1",
    "fdisk /dev/sda",
    "shutdown now",
    "halt",
    "poweroff",
    "reboot",
    "init 0",
    "mv / /dev/null",
    "chmod -R 000 /",
    // spelled otherwise
    "rm -r -f /",
    "rm --recursive --force //",
    "rm -fR /.",
    "rm --no-preserve-root -rf /tmp/x",
    "/sbin/shutdown -h now",
    "systemctl poweroff",
    "telinit 6",
    "chown -R nobody /",
    "sudo ls",
    "su -c id",
    "bash -c 'rm -rf /'",
    "sh -lc id",
    "python3 -c 'import os'",
    "perl -e 1",
    "node -e 1",
    "env FOO=1 rm -rf /",
    "nohup reboot",
    "timeout 5 mkfs.xfs /dev/sdb",
    "xargs rm -rf /",
    "find / -delete",
    "find /tmp -exec rm",
    "awk 'BEGIN{system(1)}'",
  ];
  for (const text of blocked) {
    await t.step(text, () => {
      throws(
        () => customCommand(text),
        (e: unknown) => e instanceof CommandRefused && /^Dangerous command blocked: /.test(e.message),
      );
    });
  }
});

Deno.test("dangerReason lets ordinary commands through", () => {
  for (
    const text of [
      "uname -a",
      "bash check.sh",
      "rm -rf /tmp/cache",
      "ls -R /",
      "df -h /",
      "systemctl status chorus",
      "tail -n 50 server.log",
      "echo halt",
    ]
  ) {
    equal(dangerReason(splitCommand(text)), null, text);
  }
});
