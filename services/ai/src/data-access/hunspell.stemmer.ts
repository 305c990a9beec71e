import { readFileSync } from 'node:fs';
import type { Morphology, Reading } from '../domain/language/language-data';

interface AffixEntry {
  type: 'PFX' | 'SFX';
  flag: string;
  /** may combine with an affix of the other kind (the rule's `Y`) */
  cross: boolean;
  strip: string;
  add: string;
  condition: RegExp | undefined;
}

/** Splits a flag field by the dictionary's FLAG type (one character, `long` pairs, `num` list). */
function flagsOf(field: string, type: string): string[] {
  if (!field) return [];
  if (type === 'long') return field.match(/../gu) ?? [];
  if (type === 'num') return field.split(',');
  return [...field];
}

/**
 * Dictionary forms by Hunspell's affix rules, read from an installed dictionary (`<name>.aff` and
 * `.dic`, Debian's hunspell-*): a word is reduced by undoing one suffix, one prefix, or both (when
 * both rules allow it), and a base counts only when the dictionary lists it with the flag of the rule
 * undone ("spielten" = spielen + SFX, "Kinder" = Kind + SFX R). A word listed itself is its own base
 * too, after the reduced ones (the dictionary lists some plurals, "Kinder", as words). Not the full
 * Hunspell: no compounds, no second-level suffixes.
 */
export function hunspellStemmer(
  language: string,
  affPath: string,
  dicPath: string,
): Morphology & { warmUpStep(): boolean } {
  const aff = readFileSync(affPath, 'utf8').split(/\r?\n/);
  let flagType = 'char';
  const noBase = new Set<string>();
  const entries: AffixEntry[] = [];
  const cross = new Map<string, boolean>();
  for (const line of aff) {
    const parts = line.trim().split(/\s+/);
    const [kind, a, b, c, d] = parts;
    if (kind === 'FLAG' && a) flagType = a === 'UTF-8' ? 'char' : a;
    // flags of stems that are never words on their own
    if ((kind === 'NEEDAFFIX' || kind === 'ONLYINCOMPOUND') && a) noBase.add(a);
    if ((kind === 'PFX' || kind === 'SFX') && a && b !== undefined) {
      if (!cross.has(a) && (b === 'Y' || b === 'N') && /^\d+$/.test(c ?? '')) {
        cross.set(a, b === 'Y');
        continue;
      }
      if (c === undefined) continue;
      const strip = b === '0' ? '' : b;
      const add = c.split('/')[0]!;
      let condition: RegExp | undefined;
      if (d && d !== '.') {
        try {
          condition = new RegExp(kind === 'SFX' ? `${d}$` : `^${d}`, 'u');
        } catch {
          continue;
        }
      }
      entries.push({
        type: kind,
        flag: a,
        cross: cross.get(a) ?? false,
        strip,
        add: add === '0' ? '' : add,
        condition,
      });
    }
  }
  const words = new Map<string, Set<string>>();
  // the word list is read in slices (warmUpStep, ~20 000 lines each) or at once on first use
  let dic: string[] | undefined;
  let read = 1;
  const readSlice = (lines: number) => {
    dic ??= readFileSync(dicPath, 'utf8').split(/\r?\n/);
    const end = Math.min(dic.length, read + lines);
    for (; read < end; read++) {
      const line = dic[read]!;
      if (!line || line.startsWith('\t')) continue;
      // "word/FLAGS morphological-fields"; a slash inside the word is escaped
      const m = /^((?:\\\/|[^/\s])+)(?:\/(\S+))?/u.exec(line);
      if (!m) continue;
      const word = m[1]!.replace(/\\\//g, '/');
      const flags = words.get(word) ?? new Set<string>();
      for (const f of flagsOf(m[2] ?? '', flagType)) flags.add(f);
      words.set(word, flags);
    }
    const done = read >= dic.length;
    if (done) dic = [];
    return done;
  };
  let loaded = false;
  const ensureLoaded = () => {
    if (!loaded) loaded = readSlice(Number.MAX_SAFE_INTEGER);
  };
  const suffixes = entries.filter((e) => e.type === 'SFX');
  const prefixes = entries.filter((e) => e.type === 'PFX');
  const hasFlag = (word: string, flag: string) => {
    const flags = words.get(word);
    return !!flags && flags.has(flag) && ![...noBase].some((f) => flags.has(f));
  };
  const isWord = (word: string) => {
    const flags = words.get(word);
    return !!flags && ![...noBase].some((f) => flags.has(f));
  };

  /** Bases of `word` with one suffix undone: [base, the rule's entry]. */
  const unsuffix = (word: string) =>
    suffixes.flatMap((e) => {
      if (!word.endsWith(e.add) || word.length <= e.add.length) return [];
      const base = word.slice(0, word.length - e.add.length) + e.strip;
      return !e.condition || e.condition.test(base) ? [[base, e] as const] : [];
    });
  const unprefix = (word: string) =>
    prefixes.flatMap((e) => {
      if (!word.startsWith(e.add) || word.length <= e.add.length) return [];
      const base = e.strip + word.slice(e.add.length);
      return !e.condition || e.condition.test(base) ? [[base, e] as const] : [];
    });

  function stems(word: string): string[] {
    const found: string[] = [];
    const add = (s: string) => {
      if (!found.includes(s)) found.push(s);
    };
    for (const [base, e] of unsuffix(word)) if (hasFlag(base, e.flag)) add(base);
    for (const [base, e] of unprefix(word)) {
      if (hasFlag(base, e.flag)) add(base);
      if (e.cross)
        for (const [inner, s] of unsuffix(base))
          if (s.cross && hasFlag(inner, s.flag) && hasFlag(inner, e.flag)) add(inner);
    }
    if (isWord(word)) add(word);
    return found;
  }

  return {
    language,
    warmUpStep() {
      if (!loaded) loaded = readSlice(20_000);
      return loaded;
    },
    async analyse(list) {
      ensureLoaded();
      const result = new Map<string, Reading[]>();
      for (const w of list) {
        // as written, then as a sentence start or a German noun would be ("kinder" → "Kinder")
        const forms = [w, w.toLowerCase(), w[0]!.toUpperCase() + w.slice(1).toLowerCase()];
        const lemmas: string[] = [];
        for (const f of new Set(forms)) for (const s of stems(f)) if (!lemmas.includes(s)) lemmas.push(s);
        // German writes every noun with a capital, and only nouns
        const nounByCase = (lemma: string) =>
          language === 'de' && lemma[0] !== lemma[0]!.toLowerCase() ? 'noun' : 'other';
        result.set(
          w,
          lemmas.map((lemma) => ({ lemma, partOfSpeech: nounByCase(lemma) })),
        );
      }
      return result;
    },
  };
}
