/**
 * The release manifest a server checks for updates (spec 3 §5.4): a JSON
 * document at `update.manifest_url` naming the newest version and, per
 * platform (Deno's target triple, e.g. `x86_64-unknown-linux-gnu`), the
 * artifact's URL (absolute or relative to the manifest), SHA-256 and size:
 *
 * ```json
 * { "version": "0.2.0",
 *   "artifacts": { "x86_64-unknown-linux-gnu":
 *     { "url": "chorus-0.2.0-x86_64-unknown-linux-gnu", "sha256": "...64 hex...", "size": 91234567 } } }
 * ```
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { parseVersion } from "./version.ts";
import { UpdateError } from "./errors.ts";

/** Largest artifact accepted (the binary is ~100 MB; this bounds a hostile manifest). */
export const MAX_ARTIFACT_BYTES = 1024 * 1024 * 1024;

const ArtifactSchema = z.object({
  url: z.string().check(z.minLength(1)),
  sha256: z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, { error: "expected 64 hexadecimal digits" })),
  size: z.int().check(z.gte(1), z.lte(MAX_ARTIFACT_BYTES)),
});

const ManifestSchema = z.object({
  version: z.string().check(z.refine((v) => parseVersion(v) !== null, { error: "expected MAJOR.MINOR.PATCH[-pre]" })),
  notes: z.optional(z.string().check(z.maxLength(4000))),
  artifacts: z.record(z.string(), ArtifactSchema),
});

/** One release for this platform, as the updater downloads it. */
export interface Release {
  readonly version: string;
  /** Absolute URL of the artifact. */
  readonly url: string;
  /** Lower-case hex. */
  readonly sha256: string;
  readonly size: number;
  readonly notes?: string;
}

/**
 * The release for `platform` described by manifest `body` fetched from
 * `manifestUrl`; throws an {@link UpdateError} `MANIFEST` saying what is
 * wrong (malformed JSON, a field, no artifact for this platform, a
 * downgrade from https to http).
 */
export function releaseFromManifest(body: string, manifestUrl: string, platform: string): Release {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new UpdateError("MANIFEST", `the manifest at ${manifestUrl} is not JSON`);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UpdateError("MANIFEST", `the manifest's ${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  const artifact = parsed.data.artifacts[platform];
  if (!artifact) {
    const known = Object.keys(parsed.data.artifacts).join(", ") || "none";
    throw new UpdateError("MANIFEST", `the manifest has no artifact for ${platform} (it has: ${known})`);
  }
  let url: URL;
  try {
    url = new URL(artifact.url, manifestUrl);
  } catch {
    throw new UpdateError("MANIFEST", `the artifact URL "${artifact.url}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UpdateError("MANIFEST", `the artifact URL must be http(s), not ${url.protocol}`);
  }
  // The manifest's TLS is what vouches for the SHA-256: an https manifest may not send us to plain http.
  if (new URL(manifestUrl).protocol === "https:" && url.protocol !== "https:") {
    throw new UpdateError("MANIFEST", "an https manifest may not name a plain-http artifact");
  }
  return {
    version: parsed.data.version,
    url: url.href,
    sha256: artifact.sha256.toLowerCase(),
    size: artifact.size,
    ...(parsed.data.notes !== undefined ? { notes: parsed.data.notes } : {}),
  };
}
