import { deepEqual, equal } from "node:assert/strict";
import { maskCredentials, storeView } from "./admin_state.ts";

Deno.test("admin state: the store report becomes health, backlog and a masked error", () => {
  deepEqual(storeView({ enabled: false, mode: "memory only: nothing is written to disk" }), { enabled: false });
  deepEqual(
    storeView({
      enabled: true,
      backend: "postgres",
      store_up: false,
      mode: "journal",
      pending: 12,
      dead_letters: 1,
      last_error: "connect ECONNREFUSED postgres://chorus:s3cret@db.internal:5432/chorus",
      data_dir: "/srv/chorus/data",
    }),
    {
      enabled: true,
      backend: "postgres",
      up: false,
      mode: "journal",
      pending: 12,
      dead_letters: 1,
      last_error: "connect ECONNREFUSED postgres://chorus:***@db.internal:5432/chorus",
    },
  );
  // A report that failed to build counts as down, with its error.
  deepEqual(storeView({ enabled: true, error: "worker gone" }), {
    enabled: true,
    backend: null,
    up: false,
    mode: null,
    pending: 0,
    dead_letters: 0,
    last_error: "worker gone",
  });
});

Deno.test("admin state: credentials in URLs are masked and long errors shortened", () => {
  equal(maskCredentials("no url here"), "no url here");
  equal(maskCredentials("http://user@host/x"), "http://user@host/x");
  equal(
    maskCredentials("a postgresql://u:p%40ss@h/db and https://x:y@z"),
    "a postgresql://u:***@h/db and https://x:***@z",
  );
  const long = maskCredentials("e".repeat(1000));
  equal(long.length, 300);
  equal(long.endsWith("…"), true);
});
