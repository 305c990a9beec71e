import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from '@lingua/errors';
import { answerJson, errorBodyForPath } from './envelopes';

/** Health probes are never shed; cheap reads are shed after everything else. */
export type Priority = 'critical' | 'read' | 'normal';

export interface LoadShedderOptions {
  /** In-flight requests allowed at start; the limit then adapts between min and max. */
  initialLimit: number;
  minLimit: number;
  maxLimit: number;
  /** Mean latency of a window above which the limit shrinks (the work queues somewhere below). */
  targetLatencyMs: number;
  /** Event-loop delay, lasting two windows running, that counts as congestion. */
  maxEventLoopDelayMs: number;
  /** Share of the limit kept for cheap reads: normal requests are shed at limit × (1 − reserve). */
  readReserve?: number;
  windowMs?: number;
}

export interface LoadShedder {
  /** A release function when the request may go ahead, undefined when it must be shed. */
  tryAcquire(priority: Priority): ((latencyMs: number, congested: boolean) => void) | undefined;
  readonly stats: { inFlight: number; limit: number; shed: number; eventLoopDelayMs: number };
  /** Ends the current window now (the timer does it every windowMs; tests drive it by hand). */
  endWindow(): void;
  stop(): void;
}

/**
 * The limit every process runs with: it starts at the maximum (a limit far above the load comes down
 * at once, see endWindow) and never goes below 16 requests in flight.
 */
export const adaptiveShedder = (o: {
  maxInFlight: number;
  targetLatencyMs: number;
  maxEventLoopDelayMs: number;
}): LoadShedder =>
  createLoadShedder({
    initialLimit: o.maxInFlight,
    minLimit: Math.min(16, o.maxInFlight),
    maxLimit: o.maxInFlight,
    targetLatencyMs: o.targetLatencyMs,
    maxEventLoopDelayMs: o.maxEventLoopDelayMs,
  });

/**
 * An adaptive concurrency limit (AIMD, as TCP's congestion window): while requests finish within the
 * target latency and the limit is in use, it grows by one per window; when two windows running had a
 * mean latency over the target, or answers that were timeouts or sheds from below, it shrinks to
 * four fifths of what was in use. Requests
 * over the limit are refused at once, before any work, so accepted requests keep their latency and the
 * excess costs almost nothing. A lagging event loop (this process gets no CPU) shrinks the limit too;
 * it never sheds by itself, so a process that is merely busy still serves requests one at a time.
 */
export function createLoadShedder(options: LoadShedderOptions): LoadShedder {
  const windowMs = options.windowMs ?? 250;
  const reserve = options.readReserve ?? 0.2;
  let limit = Math.min(options.maxLimit, Math.max(options.minLimit, options.initialLimit));
  let inFlight = 0;
  let shed = 0;
  let peak = 0;
  let sum = 0;
  let count = 0;
  let congested = false;
  let loopDelay = 0;
  let lateWindows = 0;
  let slowWindows = 0;
  let last = performance.now();

  /** Ends a window: adapts the limit to what the window saw. */
  const endWindow = () => {
    // nothing arrived, nothing in flight: the next window would look at nothing, so the timer stops
    // until the next request (an idle process is not woken four times a second; the limit only
    // changes with requests in use)
    const idle = count === 0 && peak === 0 && inFlight === 0;
    const now = performance.now();
    // the timer's own lateness is the event loop's delay; only a lasting one counts (this process
    // gets no CPU), not one long task such as start-up
    loopDelay = Math.max(0, now - last - windowMs);
    last = now;
    lateWindows = loopDelay > options.maxEventLoopDelayMs ? lateWindows + 1 : 0;
    const slow = congested || (count > 0 && sum / count > options.targetLatencyMs);
    slowWindows = slow ? slowWindows + 1 : 0;
    // two windows running, as for the event loop: one burst is absorbed, lasting overload is not;
    // and only with requests to cut: slow answers at low concurrency are not this process's queue
    if ((slowWindows >= 2 || lateWindows >= 2) && peak > options.minLimit)
      // from what was in use, not from the limit: a limit far above the load comes down at once
      limit = Math.max(options.minLimit, Math.min(limit, peak) * 0.8);
    else if (peak >= limit * (1 - reserve) - 1) limit = Math.min(options.maxLimit, limit + 1);
    sum = 0;
    count = 0;
    peak = inFlight;
    congested = false;
    if (idle && tick) {
      clearInterval(tick);
      tick = undefined;
    }
  };
  let tick: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    last = performance.now();
    tick = setInterval(endWindow, windowMs);
    tick.unref();
  };
  arm();

  return {
    tryAcquire(priority) {
      if (!tick && !stopped) arm();
      if (priority !== 'critical') {
        const allowed = priority === 'read' ? limit : limit * (1 - reserve);
        if (inFlight >= allowed) return void shed++;
      }
      inFlight++;
      if (inFlight > peak) peak = inFlight;
      let released = false;
      return (latencyMs, wasCongested) => {
        if (released) return;
        released = true;
        inFlight--;
        sum += latencyMs;
        count++;
        if (wasCongested) congested = true;
      };
    },
    get stats() {
      return { inFlight, limit: Math.round(limit), shed, eventLoopDelayMs: Math.round(loopDelay) };
    },
    endWindow,
    stop() {
      stopped = true;
      clearInterval(tick);
    },
  };
}

const HEALTH = /^\/(api\/)?health(\/|\?|$)/;

/** Health and metrics are critical; GET and HEAD are cheap reads; everything else is normal. */
export function priorityOf(req: IncomingMessage): Priority {
  const url = req.url ?? '/';
  if (HEALTH.test(url)) return 'critical';
  return req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'normal';
}

const RETRY_AFTER_S = '1';

/** Built once: under overload every shed answer counts, and an error's stack capture is its dearest part. */
const BUSY = new AppError('SERVICE_UNAVAILABLE', 'The server is busy; try again shortly', {
  headers: { 'Retry-After': RETRY_AFTER_S },
});
const SHED_HEADERS = { 'retry-after': RETRY_AFTER_S };

/** The answer to a shed request: 503 SRV002 in the path's envelope, with Retry-After, and nothing else done. */
export function answerShed(req: IncomingMessage, res: ServerResponse): void {
  answerJson(res, 503, errorBodyForPath(req.url ?? '/', BUSY), SHED_HEADERS);
  // the request's body, if any, is not read: let the socket drain it
  req.resume();
}

/**
 * Wraps a request listener so that the shedder decides first: a shed request is answered at once and
 * never reaches the app; an admitted one releases its slot when its response closes, reporting its
 * latency and whether the answer was itself a sign of congestion below (503, 504).
 */
export function sheddingListener(listener: RequestListener, shedder: LoadShedder): RequestListener {
  return (req, res) => {
    const release = shedder.tryAcquire(priorityOf(req));
    if (!release) return answerShed(req, res);
    const started = performance.now();
    res.on('close', () =>
      release(performance.now() - started, res.statusCode === 503 || res.statusCode === 504),
    );
    listener(req, res);
  };
}
