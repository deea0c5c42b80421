/**
 * The context of one command being handled: who sent it, and the one reply
 * it must get. Spec 3 §4.1 rule 1 holds by construction: the dispatcher
 * checks after every handler that request-type commands were answered.
 *
 * @module
 */

import type { LocalText, MessageArgs, MessageKey } from "../l10n/mod.ts";
import { translate } from "../l10n/mod.ts";
import {
  type ClientCommandOf,
  type ClientCommandType,
  REPLY_OF,
  type Result,
  type ServerCommand,
  type ServerCommandType,
} from "../protocol/mod.ts";
import type { ReplyValue } from "../room/mod.ts";
import type { Inbound, Session, SessionCategory } from "../session/session.ts";
import type { Replier, ServerCore, User } from "./core.ts";
import type { CommandView } from "./pipeline.ts";

/** One command in flight; extensions see it as a read-only {@link CommandView}. */
export class CommandContext<T extends ClientCommandType = ClientCommandType> implements Replier, CommandView {
  readonly core: ServerCore;
  readonly session: Session;
  readonly cmd: ClientCommandOf<T>;
  readonly inbound: Inbound;
  /** The reply variant this command expects, or null (Touches, Judges). */
  readonly replyType: ServerCommandType | null;
  /** Sequence number of the queued reply frame (0 until answered). */
  replySeq = 0;
  answered = false;

  constructor(core: ServerCore, session: Session, inbound: Inbound) {
    this.core = core;
    this.session = session;
    this.inbound = inbound;
    this.cmd = inbound.cmd as ClientCommandOf<T>;
    this.replyType = REPLY_OF[inbound.cmd.type];
  }

  /** The session's user, if authenticated. */
  get user(): User | undefined {
    return this.session.userId === null ? undefined : this.core.users.get(this.session.userId);
  }

  /** The command's variant. */
  get type(): T {
    return this.cmd.type as T;
  }

  /** Id of the sending session. */
  get sessionId(): number {
    return this.session.id;
  }

  /** The client's address. */
  get ip(): string {
    return this.session.ip;
  }

  /** What kind of client sent it. */
  get category(): SessionCategory {
    return this.session.category;
  }

  /** The acting user's id, or null. */
  get userId(): number | null {
    return this.session.userId;
  }

  /** The acting user's name, or null. */
  get userName(): string | null {
    return this.user?.name ?? null;
  }

  /** The acting user's room, or null. */
  get roomId(): string | null {
    return this.user?.roomId ?? null;
  }

  /**
   * Refuses the command on an extension's behalf (see `pipeline.ts`): the
   * protocol's error reply with `reason` as its text, or nothing for
   * `Touches`/`Judges`, which have no reply. Counted and logged.
   */
  veto(reason: string, by: string): void {
    this.core.counters.inc("commands_vetoed");
    this.core.ctx.log.debug("command vetoed", { command: this.cmd.type, session: this.session.id, by, reason });
    this.failText(reason);
  }

  /** Renders a text in the sender's language (en-US before login). */
  text(text: LocalText): string {
    return translate(this.user?.locale ?? "en-US", text.key, text.args);
  }

  /** Sends a fully built reply command. */
  replyCommand(cmd: ServerCommand): number {
    if (this.answered) {
      this.core.ctx.log.error("second reply to one command suppressed", {
        command: this.cmd.type,
        session: this.session.id,
      });
      return 0;
    }
    this.answered = true;
    this.core.counters.inc("response_queued");
    this.core.counters.response.record(this.core.ctx.clock.monotonic() - this.inbound.receivedAt);
    return (this.replySeq = this.session.reply(cmd));
  }

  /** Replies with a result; the variant is the one this command expects. */
  reply(result: Result<ReplyValue, LocalText>): void {
    const type = this.replyType;
    if (!type || type === "Pong") return;
    if (!result.ok) {
      this.replyCommand({ type, result: { ok: false, error: this.text(result.error) } } as ServerCommand);
    } else if (type === "JoinRoom" || result.value === null) {
      this.replyCommand({ type, result: { ok: true, value: result.value } } as ServerCommand);
    } else {
      throw new TypeError(`Cannot reply to ${this.cmd.type}: unexpected value for ${type}`);
    }
  }

  /** Replies Ok with no value. */
  ok(): void {
    this.reply({ ok: true, value: null });
  }

  /** Replies with a localized error. */
  fail(key: MessageKey, args?: MessageArgs): void {
    this.reply({ ok: false, error: args ? { key, args } : { key } });
  }

  /** Replies with an error text that is not a message key (e.g. an upstream error). */
  failText(message: string): void {
    const type = this.replyType;
    if (!type || type === "Pong") return;
    this.replyCommand({ type, result: { ok: false, error: message } } as ServerCommand);
  }
}
