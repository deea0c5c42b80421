/**
 * Waiting out the built-in welcome message (spec 3 §2.3), which arrives as
 * system chat (user 0) some time after `Authenticate(Ok)`: a test that then
 * waits for another system chat (the shutdown notice) must not catch a
 * welcome line instead.
 */
import type { PhiraClient } from "../../src/client/mod.ts";
import { type Locale, translate } from "../../src/l10n/mod.ts";

/** Resolves once the last line of the built-in welcome in `locale` has arrived, and drops every buffered event. */
export async function welcomeDone(client: PhiraClient, locale: Locale = "en-US", timeoutMs = 10_000): Promise<void> {
  const last = translate(locale, "welcome-default").split("\n").at(-1)!;
  await client.waitForMessage("Chat", (m) => m.user === 0 && m.content === last, timeoutMs);
  client.drainEvents();
}
