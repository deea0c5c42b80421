/**
 * The console on a real pseudo-terminal (issue 7 "Front ends"): the terminal
 * UI and the interactive line editor driven through tmux (`send-keys`,
 * `capture-pane`), and a console whose stdin is at end of file, which must
 * leave the server running. Skipped, with the reason printed, when tmux is
 * not installed.
 */
import { equal, ok } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { devToken } from "./support/harness.ts";

const SCRIPT = new URL("./support/console_tty_main.ts", import.meta.url).pathname;
const ROOT = new URL("..", import.meta.url).pathname;

function hasTmux(): boolean {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

const TMUX = hasTmux();
if (!TMUX) console.log("console_tty_test: tmux is not installed; the terminal UI tests are skipped");

/** One tmux server on a private socket, with one session running the script. */
class Tmux {
  readonly socket = `chorus-test-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;

  async run(...args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", { args: ["-L", this.socket, ...args], stdout: "piped", stderr: "piped" })
      .output();
    if (!out.success) throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    return new TextDecoder().decode(out.stdout);
  }

  start(args: string[]): Promise<string> {
    const command = [Deno.execPath(), "run", "-A", SCRIPT, "--linger", ...args].map((a) => `'${a}'`).join(" ");
    return this.run(
      "new-session",
      "-d",
      "-s",
      "t",
      "-x",
      "120",
      "-y",
      "40",
      "-c",
      ROOT,
      `NO_COLOR=1 ${command}`,
      ";",
      "set-option",
      "-t",
      "t",
      "remain-on-exit",
      "on",
    );
  }

  /** Types literal text. */
  type(text: string): Promise<string> {
    return this.run("send-keys", "-t", "t", "-l", text);
  }

  /** Presses named keys (Enter, Up, Home, DC, BSpace, C-u …). */
  keys(...keys: string[]): Promise<string> {
    return this.run("send-keys", "-t", "t", ...keys);
  }

  screen(): Promise<string> {
    return this.run("capture-pane", "-p", "-t", "t");
  }

  /** Polls the pane (real time: it is another process) until `pred` holds. */
  // Generous: under a loaded parallel test run the child can take a while to start; it returns as soon as the pane matches.
  async waitFor(pred: (screen: string) => boolean, what: string, timeoutMs = 120_000): Promise<string> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (pred(screen)) return screen;
      if (performance.now() > end) throw new Error(`Timed out waiting for ${what}; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async kill(): Promise<void> {
    await this.run("kill-server").catch(() => {});
  }
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

Deno.test({
  name: "terminal UI in tmux: live panes, command line with editing and history, exit",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = new Tmux();
    try {
      await t.start(["--tui"]);
      let s = await t.waitFor((x) => x.includes("Online users (1)") && x.includes("100 Alice"), "the panes");
      ok(s.includes("Rooms (0)"));
      ok(s.includes("┌─ Output"));
      ok(s.includes("┌─ Log"));
      ok(s.includes("type help for the commands"));
      ok(s.trimEnd().endsWith(">"), "the command line is the last line");

      await t.type("room create-empty lobby");
      await t.keys("Enter");
      // The rooms pane and the log pane update on their own paths: wait for both before reading the screen.
      s = await t.waitFor(
        (x) => x.includes("Rooms (1)") && x.includes("operator command"),
        "the rooms pane and the log pane to update",
      );
      ok(s.includes("│lobby  SelectingChart  0/100  host none  no chart"), s);
      ok(s.includes("│> room create-empty lobby"));
      ok(s.includes("│room lobby created"));
      ok(s.includes("operator command"), "the log pane shows the server log");

      // Editing: a stray first character removed with Home + Delete, a typo fixed with Left/BSpace.
      await t.type("xroomz");
      await t.keys("Home", "DC", "End", "BSpace");
      await t.type("s");
      await t.keys("Enter");
      s = await t.waitFor((x) => x.includes("1 room(s):"), "rooms output");
      ok(s.includes("│> rooms"));
      // History: Up recalls the last line.
      await t.keys("Up");
      await t.waitFor((x) => x.trimEnd().endsWith("> rooms"), "the recalled line");
      await t.keys("Enter");
      s = await t.waitFor((x) => count(x, "1 room(s):") === 2, "the second run");

      await t.type("frobnicate");
      await t.keys("Enter");
      await t.waitFor((x) => x.includes('error: unknown command "frobnicate"'), "the error line");

      await t.type("exit");
      await t.keys("Enter");
      s = await t.waitFor((x) => x.includes("stopped: console: exit"), "the process to stop");
      ok(!s.includes("┌─ Rooms"), "the normal screen is back");
    } finally {
      await t.kill();
    }
  },
});

Deno.test({
  name: "terminal UI in tmux: the rooms pane redraws on its own when a TCP client creates a room",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = new Tmux();
    let bob: Awaited<ReturnType<typeof connect>> | null = null;
    try {
      await t.start(["--tui"]);
      await t.waitFor((x) => x.includes("Rooms (0)") && x.includes("Online users (1)"), "the panes");
      // `ready <port>` was printed before the terminal UI took the alternate screen: read the saved normal screen.
      const normal = await t.run("capture-pane", "-p", "-a", "-t", "t");
      const port = Number(/ready (\d+)/.exec(normal)?.[1]);
      ok(port > 0, `the port on the normal screen: ${normal}`);
      bob = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
      await bob.authenticate(devToken(200));
      await bob.createRoom("from-tcp");
      // No key is pressed: the pane follows the server's events.
      const s = await t.waitFor((x) => x.includes("Rooms (1)") && x.includes("Online users (2)"), "the redraw");
      ok(s.includes("│from-tcp  SelectingChart  1/100  host 200"), s);
      await t.type("exit");
      await t.keys("Enter");
      await t.waitFor((x) => x.includes("stopped: console: exit"), "the process to stop");
    } finally {
      await bob?.close();
      await t.kill();
    }
  },
});

Deno.test({
  name: "interactive console in tmux: prompt, line editing, history, completion, log lines above the prompt",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = new Tmux();
    try {
      await t.start([]);
      await t.waitFor((x) => x.trimEnd().endsWith(">"), "the prompt");
      await t.type("room create-empty lobbx");
      await t.keys("BSpace");
      await t.type("y");
      await t.keys("Enter");
      let s = await t.waitFor((x) => x.includes("room lobby created"), "the command output");
      ok(s.includes("> room create-empty lobby"), s);
      ok(s.includes("INFO  operator command"), "log lines are printed above the prompt");
      equal(s.trimEnd().split("\n").at(-1), ">", "the prompt stays on the last line");

      await t.type("pla");
      await t.keys("Tab");
      await t.waitFor((x) => x.includes("player-count  playtime"), "the completion candidates");
      await t.keys("C-u");
      await t.type("player-c");
      await t.keys("Tab", "Enter");
      await t.waitFor((x) => x.includes("players online: 1 (1 sessions, 1 rooms)"), "completed command ran");

      await t.keys("Up", "Up");
      await t.waitFor((x) => x.trimEnd().endsWith("> room create-empty lobby"), "history");
      await t.keys("C-u");
      await t.type("quit");
      await t.keys("Enter");
      s = await t.waitFor((x) => x.includes("stopped: console: exit"), "the process to stop");
    } finally {
      await t.kill();
    }
  },
});

Deno.test({
  name: "a console whose stdin is at end of file leaves the server running",
  sanitizeResources: false,
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", SCRIPT],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/ready \d+/.test(text)) {
      const { value, done } = await stderr.read();
      if (done) throw new Error(`script ended early: ${text}`);
      text += value;
    }
    const port = Number(/ready (\d+)/.exec(text)![1]);
    // The console has hit end of input by now; a player can still log in and play.
    const bob = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await bob.authenticate(devToken(200));
    await bob.createRoom("still-up");
    await bob.close();
    child.kill("SIGTERM");
    const out = await child.output().catch(() => null);
    await stderr.cancel();
    const status = await child.status;
    equal(status.code, 0);
    ok(out === null || new TextDecoder().decode(out.stdout).includes("stopped: SIGTERM"));
  },
});
