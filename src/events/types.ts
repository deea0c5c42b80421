/**
 * Typed domain events: what happened in the server, for the HTTP streams,
 * console, local socket, plugins and persistence (issue 3 "Events"). Nothing
 * outside the server reaches into room internals; it subscribes to these.
 *
 * @module
 */

import type { JudgeEvent, PartialRoomData, RecordData, RoomData, RoundData, TouchFrame } from "../protocol/mod.ts";

/** Fields every room event carries. */
interface RoomScoped {
  /** Room id (name). */
  readonly room: string;
  /** Unique room identifier (spec 3 §2.1 `uuid`). */
  readonly uuid: string;
  /** Hidden rooms are left out of every public list and stream. */
  readonly hidden: boolean;
}

/** Why someone left a room. */
export type LeaveReason = "leave" | "disconnect" | "kick" | "closed" | "moved" | "banned";

/** A domain event before the bus stamps it. */
export type DomainEventInput =
  | ({ readonly kind: "room.created"; readonly by: number | null; readonly data: RoomData } & RoomScoped)
  | ({ readonly kind: "room.updated"; readonly changes: PartialRoomData } & RoomScoped)
  | ({ readonly kind: "room.deleted" } & RoomScoped)
  | (
    & { readonly kind: "room.joined"; readonly user: number; readonly name: string; readonly monitor: boolean }
    & RoomScoped
  )
  | ({
    readonly kind: "room.left";
    readonly user: number;
    readonly name: string;
    readonly monitor: boolean;
    readonly reason: LeaveReason;
  } & RoomScoped)
  | ({
    readonly kind: "round.started";
    readonly round: string;
    readonly chart: number;
    readonly chartName: string;
    readonly players: readonly number[];
  } & RoomScoped)
  | ({
    readonly kind: "round.scored";
    readonly round: string | null;
    readonly chart: number | null;
    readonly user: number;
    readonly record: RecordData;
  } & RoomScoped)
  | ({
    readonly kind: "round.completed";
    readonly round: string;
    readonly chart: number;
    readonly chartName: string;
    readonly data: RoundData;
    readonly aborted: readonly number[];
    readonly startedAt: number;
  } & RoomScoped)
  | ({ readonly kind: "chat.message"; readonly user: number; readonly content: string } & RoomScoped)
  | ({
    readonly kind: "touches";
    readonly user: number;
    readonly round: string | null;
    /** Decoded on first access when the event comes from the relay (`protocol/telemetry_view.ts`). */
    readonly frames: readonly TouchFrame[];
    /** The command's payload exactly as the client sent it (tag byte first, no frame length): replays keep these. */
    readonly raw?: Uint8Array;
    /** `frames.length`, known without decoding them (set by the relay). */
    readonly count?: number;
  } & RoomScoped)
  | ({
    readonly kind: "judges";
    readonly user: number;
    readonly round: string | null;
    /** Decoded on first access when the event comes from the relay (`protocol/telemetry_view.ts`). */
    readonly judges: readonly JudgeEvent[];
    /** The command's payload exactly as the client sent it (tag byte first, no frame length): replays keep these. */
    readonly raw?: Uint8Array;
    /** `judges.length`, known without decoding them (set by the relay). */
    readonly count?: number;
  } & RoomScoped)
  | {
    readonly kind: "user.online";
    readonly user: number;
    readonly name: string;
    readonly language: string;
    readonly ip: string | null;
  }
  | { readonly kind: "user.offline"; readonly user: number; readonly name: string };

/** Event kinds. */
export type DomainEventKind = DomainEventInput["kind"];

/** A published event: the input plus a global sequence number and time. */
export type DomainEvent = DomainEventInput & { readonly seq: number; readonly time: number };

/** The event of one kind. */
export type DomainEventOf<K extends DomainEventKind> = Extract<DomainEvent, { kind: K }>;

/** High-frequency kinds: delivered only to subscribers that ask for them by name. */
export const TELEMETRY_KINDS: ReadonlySet<DomainEventKind> = new Set(["touches", "judges"]);
