// Preloaded into every `bun test` process (bunfig.toml). `tests/run.ts` starts its test processes with
// `MIMALLOC_PURGE_DELAY=-1`: Bun's allocator then keeps the memory a test process frees instead of
// handing it back to the kernel 100 ms later and faulting it in again page by page when the next test
// allocates. The setting is read as the process starts; it is taken out of `process.env` here, so the
// relays, agents and browsers a test starts with an environment built from it run on their own
// defaults, as people run them. (`Bun.spawn` without `env` passes the environment the process started
// with: what the tests start that way are their own helpers, proxies and load generators.)
delete process.env.MIMALLOC_PURGE_DELAY;
