;; Test plugin: traps in init.
(module

  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 16) "init_trap")
  (data (i32.const 48) "0.1.0")
  (data (i32.const 64) "chorus tests")
  (data (i32.const 80) "misbehaving test plugin")

  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
      (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (local.get $p))

  (func (export "init") (result i32)
    unreachable
    (i32.store8 (i32.const 1024) (i32.const 0))
    (i32.const 1024))
  (func (export "get-info") (result i32)
    (i32.store (i32.const 1056) (i32.const 16)) (i32.store (i32.const 1060) (i32.const 9))
    (i32.store (i32.const 1064) (i32.const 48)) (i32.store (i32.const 1068) (i32.const 5))
    (i32.store (i32.const 1072) (i32.const 64)) (i32.store (i32.const 1076) (i32.const 12))
    (i32.store (i32.const 1080) (i32.const 80)) (i32.store (i32.const 1084) (i32.const 23))
    (i32.const 1056))
  (func (export "cleanup"))
  (func (export "on-event") (param i32 i32 i32 i32 i32 i32 i32 i32 f32 i32 i32 i32 i32 i32 i32) (result i32)

    (i32.store8 (i32.const 1120) (i32.const 0))
    (i32.store8 (i32.const 1124) (i32.const 1))
    (i32.const 1120))
  (func (export "on-api") (param i32 i32 i32 i32) (result i32)

    (i32.store8 (i32.const 1152) (i32.const 0))
    (i32.store8 (i32.const 1160) (i32.const 0))
    (i32.const 1152))
)
