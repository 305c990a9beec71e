/** Seconds since `started` (from `process.hrtime.bigint()`), for histograms. */
export const secondsSince = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;
