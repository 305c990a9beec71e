import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the gateway process, applied before anything else loads.
 *
 * Allocation-site pretenuring off: V8 watches which allocation sites' objects survive young-generation
 * GCs and, past a threshold, allocates that site's objects straight in the old generation. Under
 * proxy load (50 requests in flight, each living a few ms) some gateway processes tipped into that
 * state: 2-5 mark-compacts in 11 s, 0.5-5.5 MB promoted per scavenge, pauses up to 43 ms, and
 * 143-170 µs of CPU per request instead of 108-125. With the flag, 10 processes of 10 ran at
 * 108-117 µs; without it, 3 of 10 landed in the slow state (docs/adr/0005-gateway-fast-path.md).
 * The flag is not allowed in NODE_OPTIONS, and setting it here keeps one place for every launcher
 * (npm start, the Docker image, the bench).
 */
setFlagsFromString('--no-allocation-site-pretenuring');
