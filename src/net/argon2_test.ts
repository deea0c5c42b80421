import { equal, ok } from "node:assert/strict";
import { argon2Check, argon2Hash, isArgon2idHash, paramsOf, TEST_ARGON2 } from "./argon2.ts";

Deno.test("isArgon2idHash accepts PHC strings with bounded costs only", () => {
  ok(
    isArgon2idHash("$argon2id$v=19$m=19456,t=2,p=1$A8ayilrlo9CMSsR/qegWww$5tuELie7+BBgaeifTVxWGxXTVQhskdLWiKst43LaYIc"),
  );
  equal(
    isArgon2idHash("$argon2i$v=19$m=19456,t=2,p=1$A8ayilrlo9CMSsR/qegWww$5tuELie7+BBgaeifTVxWGxXTVQhskdLWiKst43LaYIc"),
    false,
  );
  equal(
    isArgon2idHash(
      "$argon2id$v=19$m=99999999,t=2,p=1$A8ayilrlo9CMSsR/qegWww$5tuELie7+BBgaeifTVxWGxXTVQhskdLWiKst43LaYIc",
    ),
    false,
    "a hash demanding 95 GiB is refused before anyone verifies against it",
  );
});

Deno.test("argon2Hash and argon2Check: a round trip, a wrong password, malformed and unbounded hashes are false", async () => {
  const encoded = await argon2Hash("correct horse", TEST_ARGON2);
  ok(isArgon2idHash(encoded), encoded);
  equal(paramsOf(encoded)?.memorySize, TEST_ARGON2.memorySize);
  equal(await argon2Check("correct horse", encoded), true);
  equal(await argon2Check("correct horsE", encoded), false);
  equal(await argon2Check("correct horse", ""), false);
  equal(await argon2Check("correct horse", "$argon2id$v=19$m=256,t=1,p=1$!!$??"), false);
  // The same hash claiming 95 GiB: refused without running it (it would throw or exhaust memory).
  equal(await argon2Check("correct horse", encoded.replace("m=256", "m=99999999")), false);
});
