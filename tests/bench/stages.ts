// Where a benchmark run's time goes: each stage's wall seconds, said as it ends and kept for the
// results file. The smoke run (`--smoke`) holds one of the test runner's lanes, so what it waits on
// is worth seeing; the figures themselves never read these.
export const stages: { stage: string; seconds: number }[] = [];

/** Runs one stage of the benchmark and notes how long it took, even when it fails. */
export async function stage<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    const seconds = (performance.now() - started) / 1000;
    stages.push({ stage: name, seconds });
    console.error(`bench: ${name}: ${seconds.toFixed(1)} s`);
  }
}
