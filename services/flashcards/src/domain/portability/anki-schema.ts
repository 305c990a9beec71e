/**
 * The Anki collection at schema 11 (`collection.anki2`), the format every Anki version imports:
 * Anki upgrades the JSON note types in `col.models` into its newer tables on import.
 * References: Anki's own legacy schema, genanki, and the gotchas in research §5.
 */
export const ANKI_SCHEMA_11 = `
CREATE TABLE col (
  id integer primary key, crt integer not null, mod integer not null, scm integer not null,
  ver integer not null, dty integer not null, usn integer not null, ls integer not null,
  conf text not null, models text not null, decks text not null, dconf text not null, tags text not null
);
CREATE TABLE notes (
  id integer primary key, guid text not null, mid integer not null, mod integer not null,
  usn integer not null, tags text not null, flds text not null, sfld integer not null,
  csum integer not null, flags integer not null, data text not null
);
CREATE TABLE cards (
  id integer primary key, nid integer not null, did integer not null, ord integer not null,
  mod integer not null, usn integer not null, type integer not null, queue integer not null,
  due integer not null, ivl integer not null, factor integer not null, reps integer not null,
  lapses integer not null, left integer not null, odue integer not null, odid integer not null,
  flags integer not null, data text not null
);
CREATE TABLE revlog (
  id integer primary key, cid integer not null, usn integer not null, ease integer not null,
  ivl integer not null, lastIvl integer not null, factor real not null, time integer not null,
  type integer not null
);
CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null);
CREATE INDEX ix_notes_usn on notes (usn);
CREATE INDEX ix_cards_usn on cards (usn);
CREATE INDEX ix_revlog_usn on revlog (usn);
CREATE INDEX ix_cards_nid on cards (nid);
CREATE INDEX ix_cards_sched on cards (did, queue, due);
CREATE INDEX ix_revlog_cid on revlog (cid);
CREATE INDEX ix_notes_csum on notes (csum);
`;

/** Fixed, so exporting twice and importing both into Anki reuses one note type instead of cloning it. */
export const LINGUA_MODEL_ID = 1_700_000_004_242;
export const LINGUA_MODEL_NAME = 'Lingua Vocabulary';

/** The note type's fields, in order; their names map back to card fields on import. */
export const LINGUA_MODEL_FIELDS = [
  'Word',
  'Translation',
  'PartOfSpeech',
  'Pronunciation',
  'Definition',
  'ExampleSentence',
  'ExampleTranslation',
  'Synonyms',
  'Difficulty',
] as const;

const CSS = `.card { font-family: arial; font-size: 22px; text-align: center; color: black; background-color: white; }
.meta { font-size: 16px; color: #666; }`;

const FRONT = `{{Word}}{{#Pronunciation}}<div class="meta">{{Pronunciation}}</div>{{/Pronunciation}}`;
const BACK = `{{FrontSide}}<hr id=answer>{{Translation}}
{{#PartOfSpeech}}<div class="meta">{{PartOfSpeech}}</div>{{/PartOfSpeech}}
{{#Definition}}<div>{{Definition}}</div>{{/Definition}}
{{#ExampleSentence}}<div><i>{{ExampleSentence}}</i></div>{{/ExampleSentence}}
{{#ExampleTranslation}}<div class="meta">{{ExampleTranslation}}</div>{{/ExampleTranslation}}
{{#Synonyms}}<div class="meta">{{Synonyms}}</div>{{/Synonyms}}`;

export function modelsJson(deckId: number, modSeconds: number): string {
  return JSON.stringify({
    [LINGUA_MODEL_ID]: {
      id: LINGUA_MODEL_ID,
      name: LINGUA_MODEL_NAME,
      type: 0,
      mod: modSeconds,
      usn: -1,
      sortf: 0,
      did: deckId,
      tmpls: [
        {
          name: 'Card 1',
          ord: 0,
          qfmt: FRONT,
          afmt: BACK,
          bqfmt: '',
          bafmt: '',
          did: null,
          bfont: '',
          bsize: 0,
        },
      ],
      flds: LINGUA_MODEL_FIELDS.map((name, ord) => ({
        name,
        ord,
        sticky: false,
        rtl: false,
        font: 'Arial',
        size: 20,
        media: [],
      })),
      css: CSS,
      latexPre:
        '\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n',
      latexPost: '\\end{document}',
      latexsvg: false,
      // the card is generated when the first field (Word) is not empty
      req: [[0, 'any', [0]]],
      tags: [],
      vers: [],
    },
  });
}

function deck(id: number, name: string, modSeconds: number, description = '') {
  return {
    id,
    name,
    desc: description,
    mod: modSeconds,
    usn: -1,
    dyn: 0,
    conf: 1,
    collapsed: false,
    browserCollapsed: false,
    extendNew: 10,
    extendRev: 50,
    newToday: [0, 0],
    revToday: [0, 0],
    lrnToday: [0, 0],
    timeToday: [0, 0],
  };
}

export function decksJson(deckId: number, deckName: string, modSeconds: number, description: string): string {
  return JSON.stringify({
    1: deck(1, 'Default', modSeconds),
    [deckId]: deck(deckId, deckName, modSeconds, description),
  });
}

export const DCONF_JSON = JSON.stringify({
  1: {
    id: 1,
    name: 'Default',
    mod: 0,
    usn: 0,
    maxTaken: 60,
    autoplay: true,
    timer: 0,
    replayq: true,
    dyn: false,
    new: {
      bury: true,
      delays: [1, 10],
      initialFactor: 2500,
      ints: [1, 4, 7],
      order: 1,
      perDay: 20,
      separate: true,
    },
    lapse: { delays: [10], leechAction: 0, leechFails: 8, minInt: 1, mult: 0 },
    rev: { bury: true, ease4: 1.3, fuzz: 0.05, ivlFct: 1, maxIvl: 36500, minSpace: 1, perDay: 200 },
  },
});

export function confJson(deckId: number): string {
  return JSON.stringify({
    activeDecks: [deckId],
    curDeck: deckId,
    newSpread: 0,
    collapseTime: 1200,
    timeLim: 0,
    estTimes: true,
    dueCounts: true,
    curModel: String(LINGUA_MODEL_ID),
    nextPos: 1,
    sortType: 'noteFld',
    sortBackwards: false,
    addToCur: true,
  });
}
