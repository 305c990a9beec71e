/** Irregular English forms (past, past participle, and other irregular inflections) of common words. */
const IRREGULAR: Record<string, string[]> = {
  be: ['am', 'is', 'are', 'was', 'were', 'been', 'being'],
  have: ['has', 'had', 'having'],
  do: ['does', 'did', 'done', 'doing'],
  go: ['goes', 'went', 'gone', 'going'],
  run: ['ran'],
  come: ['came'],
  become: ['became'],
  begin: ['began', 'begun'],
  break: ['broke', 'broken'],
  bring: ['brought'],
  build: ['built'],
  buy: ['bought'],
  catch: ['caught'],
  choose: ['chose', 'chosen'],
  drink: ['drank', 'drunk'],
  drive: ['drove', 'driven'],
  eat: ['ate', 'eaten'],
  fall: ['fell', 'fallen'],
  feel: ['felt'],
  fight: ['fought'],
  find: ['found'],
  fly: ['flew', 'flown', 'flies'],
  forget: ['forgot', 'forgotten'],
  get: ['got', 'gotten'],
  give: ['gave', 'given'],
  grow: ['grew', 'grown'],
  hear: ['heard'],
  hold: ['held'],
  keep: ['kept'],
  know: ['knew', 'known'],
  leave: ['left'],
  lend: ['lent'],
  lose: ['lost'],
  make: ['made'],
  mean: ['meant'],
  meet: ['met'],
  pay: ['paid'],
  read: ['read'],
  ride: ['rode', 'ridden'],
  ring: ['rang', 'rung'],
  rise: ['rose', 'risen'],
  say: ['said'],
  see: ['saw', 'seen'],
  sell: ['sold'],
  send: ['sent'],
  sing: ['sang', 'sung'],
  sit: ['sat'],
  sleep: ['slept'],
  speak: ['spoke', 'spoken'],
  spend: ['spent'],
  stand: ['stood'],
  swim: ['swam', 'swum'],
  take: ['took', 'taken'],
  teach: ['taught'],
  tell: ['told'],
  think: ['thought'],
  throw: ['threw', 'thrown'],
  understand: ['understood'],
  wake: ['woke', 'woken'],
  wear: ['wore', 'worn'],
  win: ['won'],
  write: ['wrote', 'written'],
  child: ['children'],
  man: ['men'],
  woman: ['women'],
  person: ['people'],
  mouse: ['mice'],
  foot: ['feet'],
  tooth: ['teeth'],
  good: ['better', 'best'],
  bad: ['worse', 'worst'],
};

const VOWELS = 'aeiou';
const isConsonant = (c: string | undefined) => !!c && /[a-z]/.test(c) && !VOWELS.includes(c);

/** Short words ending consonant-vowel-consonant double the last letter (run → running, stop → stopped). */
function doublesFinal(w: string): boolean {
  const [a, b, c] = [w.at(-3), w.at(-2), w.at(-1)];
  return (
    w.length <= 4 && isConsonant(a) && !!b && VOWELS.includes(b) && isConsonant(c) && !'wxy'.includes(c!)
  );
}

/**
 * The word and its likely English inflected forms (plural / 3rd person, past, -ing, comparative,
 * superlative, and irregular forms), longest first so a blank covers the whole form. Pure.
 */
export function inflectedForms(word: string): string[] {
  const w = word.trim().toLowerCase();
  if (!w) return [];
  const forms = new Set<string>([w, ...(IRREGULAR[w] ?? [])]);
  if (w.includes(' ')) return [...forms].sort((a, b) => b.length - a.length);
  const last = w.at(-1)!;
  const stem = w.slice(0, -1);
  // -s / -es / -ies
  if (last === 'y' && isConsonant(w.at(-2))) forms.add(`${stem}ies`);
  else if (/(s|x|z|ch|sh|o)$/.test(w)) forms.add(`${w}es`);
  else forms.add(`${w}s`);
  // -ed, -ing, -er, -est
  if (last === 'e') {
    forms.add(`${w}d`).add(`${stem}ing`).add(`${w}r`).add(`${w}st`);
  } else if (last === 'y' && isConsonant(w.at(-2))) {
    forms.add(`${stem}ied`).add(`${w}ing`).add(`${stem}ier`).add(`${stem}iest`);
  } else if (doublesFinal(w)) {
    forms.add(`${w}${last}ed`).add(`${w}${last}ing`).add(`${w}${last}er`).add(`${w}${last}est`);
  } else {
    forms.add(`${w}ed`).add(`${w}ing`).add(`${w}er`).add(`${w}est`);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}
