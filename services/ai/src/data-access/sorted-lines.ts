import { type Incremental, incremental } from './incremental';

/**
 * A sorted text file (an index of WordNet or dictd) searched in place: the file stays one Buffer and
 * only the start of each line is kept (4 bytes a line), so a 500 000-line index costs ~12 MB instead
 * of a map of half a million strings (~100 MB). Lines are found by binary search on a key.
 *
 * The line starts are collected in slices (`build.step()`, for a background warm-up) or all at once
 * on the first search. The order is checked while they are collected; a file not sorted by the key (which the formats
 * promise but a hand-made file may break) is sorted in memory instead, so look-ups stay correct.
 */
export interface SortedLines {
  /** every line whose key equals `key`, in file order */
  find(key: string): string[];
  /** every line, in key order */
  forEach(visit: (line: string) => void): void;
  readonly lineCount: number;
}

/** Lines read per slice of the background build (~10–30 ms each). */
const SLICE_LINES = 20_000;

export function sortedLines(
  buf: Buffer,
  keyOf: (line: string) => string,
  skip: (line: string) => boolean = () => false,
): SortedLines & { build: Incremental<void> } {
  const lineAt = (start: number) => {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    return buf.toString('utf8', start, end);
  };
  let starts = new Uint32Array(1 << 16);
  let count = 0;
  // the line starts are collected (and the order checked) in slices, or at once on first use
  const build = incremental(function* () {
    let sorted = true;
    let previous: string | undefined;
    let inSlice = 0;
    for (let start = 0; start < buf.length;) {
      let end = buf.indexOf(10, start);
      if (end < 0) end = buf.length;
      const line = buf.toString('utf8', start, end);
      if (line.trim() && !skip(line)) {
        if (count === starts.length) {
          const grown = new Uint32Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[count++] = start;
        const key = keyOf(line);
        if (previous !== undefined && key < previous) sorted = false;
        previous = key;
      }
      start = end + 1;
      if (++inSlice === SLICE_LINES) {
        inSlice = 0;
        yield;
      }
    }
    starts = starts.slice(0, count);
    if (!sorted) {
      const keys = new Map<number, string>();
      for (const s of starts) keys.set(s, keyOf(lineAt(s)));
      starts.sort((a, b) => {
        const ka = keys.get(a)!;
        const kb = keys.get(b)!;
        return ka < kb ? -1 : ka > kb ? 1 : a - b;
      });
    }
  });
  const keyAt = (i: number) => keyOf(lineAt(starts[i]!));
  return {
    build,
    get lineCount() {
      build.result();
      return count;
    },
    forEach(visit) {
      build.result();
      for (let i = 0; i < count; i++) visit(lineAt(starts[i]!));
    },
    find(key) {
      build.result();
      // first line whose key is >= key
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keyAt(mid) < key) lo = mid + 1;
        else hi = mid;
      }
      const out: string[] = [];
      for (let i = lo; i < count; i++) {
        const line = lineAt(starts[i]!);
        if (keyOf(line) !== key) break;
        out.push(line);
      }
      return out;
    },
  };
}
