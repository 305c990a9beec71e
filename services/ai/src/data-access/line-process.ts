import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

export interface LineProcessOptions {
  /** the executable and its arguments */
  command: string;
  args: string[];
  /** how one request is written to the process's stdin */
  encode(input: string): string;
  /**
   * Where the answer to `input` ends in what the process wrote so far (the index just past it), or
   * -1 while it is incomplete.
   */
  answerEnd(buffer: string, input: string): number;
  /** one request may take this long before the process is restarted and the request answered undefined */
  timeoutMs?: number;
  /** requests waiting beyond this are answered undefined at once (the process is behind) */
  maxQueue?: number;
  onError?: (err: Error) => void;
}

export interface LineProcess {
  /** the process's answer, or undefined when it timed out, failed, or the queue was full */
  run(input: string): Promise<string | undefined>;
  stop(): void;
}

/**
 * One long-lived helper process spoken to over stdin/stdout (lt-proc, hunspell -a), started on first
 * use: requests go one at a time through a bounded queue, each with a timeout after which the process
 * is restarted. Whatever goes wrong is answered `undefined`, never thrown: callers degrade.
 */
export function lineProcess(options: LineProcessOptions): LineProcess {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const maxQueue = options.maxQueue ?? 64;
  let child: ChildProcessWithoutNullStreams | undefined;
  let buffer = '';
  let current:
    { input: string; resolve: (out: string | undefined) => void; timer: NodeJS.Timeout } | undefined;
  const queue: Array<{ input: string; resolve: (out: string | undefined) => void }> = [];

  const finish = (out: string | undefined) => {
    const c = current;
    if (!c) return;
    current = undefined;
    clearTimeout(c.timer);
    c.resolve(out);
    next();
  };
  const kill = () => {
    const c = child;
    child = undefined;
    buffer = '';
    c?.kill();
  };
  const ensureChild = () => {
    if (child) return child;
    const c = spawn(options.command, options.args, { stdio: 'pipe' });
    child = c;
    // an idle helper does not keep the process alive
    c.unref();
    for (const s of [c.stdin, c.stdout, c.stderr]) (s as unknown as Socket).unref?.();
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (chunk: string) => {
      if (c !== child) return;
      buffer += chunk;
      while (current) {
        const end = options.answerEnd(buffer, current.input);
        if (end < 0) break;
        const out = buffer.slice(0, end);
        buffer = buffer.slice(end);
        finish(out);
      }
    });
    c.stderr.resume();
    const failed = (err: Error) => {
      if (c !== child) return;
      options.onError?.(err);
      kill();
      finish(undefined);
    };
    c.on('error', failed);
    c.on('exit', (code) => failed(new Error(`${options.command} exited (${code ?? 'signal'})`)));
    c.stdin.on('error', failed);
    return c;
  };
  function next() {
    if (current) return;
    const job = queue.shift();
    if (!job) return;
    const timer = setTimeout(() => {
      options.onError?.(new Error(`${options.command} took over ${timeoutMs} ms: restarted`));
      kill();
      finish(undefined);
    }, timeoutMs);
    current = { input: job.input, resolve: job.resolve, timer };
    try {
      ensureChild().stdin.write(options.encode(job.input));
    } catch (err) {
      options.onError?.(err as Error);
      kill();
      finish(undefined);
    }
  }

  return {
    run: (input) =>
      new Promise<string | undefined>((resolve) => {
        if (queue.length >= maxQueue) return resolve(undefined);
        queue.push({ input, resolve });
        next();
      }),
    stop() {
      kill();
      for (const job of queue.splice(0)) job.resolve(undefined);
      finish(undefined);
    },
  };
}
