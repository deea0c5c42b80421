/**
 * Terminal safety for text that came from users (player names, OpenUDS
 * `client_name`, room names in messages): C0 controls (except newline and
 * tab), DEL and the C1 range \x80-\x9f can move the cursor, retitle the
 * window or start an escape sequence (\x9b is a one-byte CSI on many
 * terminals), so the console and the log show them escaped instead.
 *
 * @module
 */

/** C0 controls other than tab and newline, DEL, and C1 controls. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Every C0 and C1 control and DEL (for single-line values such as log fields). */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/** True when `text` holds a C0 or C1 control character or DEL (newline and tab included). */
export function hasControlChars(text: string): boolean {
  return ANY_CONTROL.test(text);
}

/** The `\xNN` form of one control character. */
function escapeOne(ch: string): string {
  return `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/**
 * `text` with every control character that could act on a terminal written
 * as a visible `\xNN`; newlines (line breaks meant by the caller) and tabs
 * are kept.
 */
export function escapeControlChars(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** JSON text with C1 controls and DEL written as `\u00NN` (JSON.stringify escapes only C0). */
export function escapeJsonControls(json: string): string {
  return json.replace(/[\x7f-\x9f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
