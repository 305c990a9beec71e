import type { GrammarChecker, GrammarError } from '../domain/language/language-data';
import { lineProcess } from './line-process';

/**
 * The glue to Grammalecte's Python library (Debian's python3-grammalecte has no command line): one
 * sentence a line in, as JSON, its grammar errors a line out. Spelling is Hunspell's, not asked here;
 * typographic rules are off.
 */
const GLUE = `
import json, sys
import grammalecte
checker = grammalecte.GrammarChecker('fr')
# a learner's grammar, not typesetting: no typographic quotes, dashes, spaces, inclusive forms, units
for option in ('typo', 'apos', 'esp', 'nbsp', 'tu', 'eepi', 'unit', 'num', 'chim', 'latex', 'md'):
    checker.getGCEngine().setOption(option, False)
for line in sys.stdin:
    try:
        errors, _ = checker.getParagraphErrors(json.loads(line), bDebug=False, bContext=False, bSpellSugg=False)
        out = [[e['nStart'], e['nEnd'], e['sLineId'], e['sType'], e['aSuggestions'], e['sMessage']] for e in errors]
    except Exception:
        out = None
    sys.stdout.write(json.dumps(out) + '\\n')
    sys.stdout.flush()
`;

type Row = [number, number, string, string, string[], string];

/** UTF-16 offsets of code-point offsets (Python counts code points; an emoji is two units here). */
function utf16Offsets(text: string): (codePoint: number) => number {
  const at: number[] = [];
  let unit = 0;
  for (const ch of text) {
    at.push(unit);
    unit += ch.length;
  }
  at.push(unit);
  return (cp) => at[Math.min(Math.max(cp, 0), at.length - 1)]!;
}

export interface GrammalecteOptions {
  /** Debian's python3 (its dist-packages hold grammalecte) */
  python: string;
  timeoutMs?: number;
  onError?: (err: Error) => void;
}

/**
 * French grammar by Grammalecte (python3-grammalecte): one long-lived process, started on first use,
 * with lineProcess's bounded queue, timeout and restart. The first sentence loads its rules (~1 s).
 */
export function grammalecteChecker(options: GrammalecteOptions): GrammarChecker & { stop(): void } {
  const process = lineProcess({
    // -I: Debian's own modules only (no user site, no PYTHON* variables); -u: unbuffered answers
    command: options.python,
    args: ['-I', '-u', '-c', GLUE],
    encode: (input) => `${input}\n`,
    answerEnd: (buffer) => {
      const end = buffer.indexOf('\n');
      return end < 0 ? -1 : end + 1;
    },
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.onError && { onError: options.onError }),
  });
  return {
    language: 'fr',
    async check(sentence) {
      const out = await process.run(JSON.stringify(sentence));
      if (out === undefined) return undefined;
      const rows = JSON.parse(out) as Row[] | null;
      if (!rows) return undefined;
      const offset = utf16Offsets(sentence);
      return rows.map(([start, end, rule, kind, suggestions, message]): GrammarError => ({
        start: offset(start),
        end: offset(end),
        rule,
        kind,
        suggestions,
        message,
      }));
    },
    stop: () => process.stop(),
  };
}
