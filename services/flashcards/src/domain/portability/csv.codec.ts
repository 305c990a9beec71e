import { Readable, pipeline } from 'node:stream';
import { CsvError, parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { MalformedFileError, PORTABLE_FIELDS, type PortableCard, type RawRow } from './portable-card';

/** Separator of the list columns (synonyms, tags) inside one CSV cell. */
export const CSV_LIST_SEPARATOR = ';';

// Spreadsheet formula injection (OWASP "CSV Injection"): a cell starting with one of these is
// prefixed with an apostrophe on export, and the apostrophe is removed again on import.
const FORMULA_START = /^[=+\-@\t\r]/;
const escapeCell = (value: string) => (FORMULA_START.test(value) ? `'${value}` : value);
const unescapeCell = (value: string) =>
  value.startsWith("'") && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;

/** CSV with a header row and a UTF-8 BOM (so spreadsheet apps detect the encoding). */
export function encodeCsv(cards: readonly PortableCard[]): string {
  const rows = cards.map((card) =>
    PORTABLE_FIELDS.map((field) => {
      const value = card[field];
      if (Array.isArray(value)) return escapeCell(value.join(CSV_LIST_SEPARATOR));
      return escapeCell(value ?? '');
    }),
  );
  return (
    '\uFEFF' +
    stringify([[...PORTABLE_FIELDS], ...rows], {
      record_delimiter: '\r\n',
      // RFC 4180: a field holding a bare line break is quoted too (the library quotes only the record
      // delimiter itself once one is set, and other readers then split the record)
      quote_record_delimiter: true,
    })
  );
}

// Accepted header names (case- and space-insensitive), including the common front/back pair.
const HEADER_ALIASES: Record<string, string> = {
  front: 'word',
  term: 'word',
  back: 'translation',
  meaning: 'translation',
  example: 'exampleSentence',
  synonym: 'synonyms',
  tag: 'tags',
};

function canonicalHeader(raw: string): string | undefined {
  const key = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
  const known = PORTABLE_FIELDS.find((f) => f.toLowerCase() === key);
  return known ?? HEADER_ALIASES[key];
}

/** Largest CSV record (characters); a card cannot be valid beyond it, so the file is refused. */
export const MAX_CSV_RECORD_CHARS = 1024 * 1024;

const parseOptions = (delimiter: string) => ({
  delimiter,
  relax_column_count: false,
  skip_empty_lines: true,
  bom: true,
  max_record_size: MAX_CSV_RECORD_CHARS,
});

const malformedCsv = (err: unknown) =>
  err instanceof MalformedFileError
    ? err
    : new MalformedFileError(`The CSV file is malformed: ${(err as Error).message}`);

/** The fields of each column, from the header row; refused without word and translation. */
function columnsOf(header: string[] | undefined): (string | undefined)[] {
  if (!header) throw new MalformedFileError('The CSV file has no header row');
  const columns = header.map(canonicalHeader);
  if (!columns.includes('word') || !columns.includes('translation')) {
    throw new MalformedFileError(
      'The CSV header must name the columns word and translation (or front and back)',
    );
  }
  return columns;
}

function toRow(columns: (string | undefined)[], cells: string[], index: number): RawRow {
  const data: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    if (!column) return;
    const value = unescapeCell(cells[i] ?? '');
    data[column] =
      column === 'synonyms' || column === 'tags'
        ? value
            .split(CSV_LIST_SEPARATOR)
            .map((s) => s.trim())
            .filter(Boolean)
        : value;
  });
  // +2: the header is line 1 and rows are 1-based (skipped blank lines aside)
  return { row: index + 2, data };
}

/**
 * Reads a CSV export (ours or a spreadsheet's): a header row naming at least word and translation
 * (or front and back), commas or semicolons as delimiters. Anything that is not well-formed CSV is
 * a MalformedFileError, so no row of a broken file is imported.
 */
export function decodeCsv(text: string): RawRow[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw new MalformedFileError('The CSV file is empty');
  let records: string[][];
  try {
    records = parse(body, parseOptions(detectDelimiter(body))) as string[][];
  } catch (err) {
    throw malformedCsv(err);
  }
  const [header, ...lines] = records;
  const columns = columnsOf(header);
  return lines.map((cells, index) => toRow(columns, cells, index));
}

/** Text read before the delimiter is chosen (the header row, normally far shorter). */
const SNIFF_CHARS = 64 * 1024;

/**
 * decodeCsv for text arriving in pieces: csv-parse's streaming parser, one row yielded as soon as
 * it is complete, so neither the file nor its records are held whole.
 */
export async function* decodeCsvStream(text: AsyncIterable<string>): AsyncGenerator<RawRow> {
  const source = text[Symbol.asyncIterator]();
  // the delimiter is told from the header line: read up to its end first
  let start = '';
  let done = false;
  // (a file of blank lines only is read to its end: it is empty)
  while (!/\S.*\r?\n/.test(start) && start.length < SNIFF_CHARS) {
    const next = await source.next();
    if (next.done) {
      done = true;
      break;
    }
    start += next.value;
  }
  start = start.replace(/^\uFEFF/, '');
  if (done && start.trim() === '') throw new MalformedFileError('The CSV file is empty');
  if (/^\s*[[{]/.test(start))
    throw new MalformedFileError(
      'The file looks like JSON, not CSV: send it with format "json" or a .json name',
    );
  async function* rest() {
    yield start;
    if (!done) for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
  }
  const records = pipeline(Readable.from(rest()), parseStream(parseOptions(detectDelimiter(start))), () => {
    // errors surface in the loop below, through the parser
  });
  let columns: (string | undefined)[] | undefined;
  let index = 0;
  try {
    for await (const cells of records as AsyncIterable<string[]>) {
      if (!columns) columns = columnsOf(cells);
      else yield toRow(columns, cells, index++);
    }
  } catch (err) {
    // the parser's own errors mean a broken file; others (the source's) pass as they are
    throw err instanceof CsvError ? malformedCsv(err) : err;
  }
  if (!columns) throw new MalformedFileError('The CSV file has no header row');
}

function detectDelimiter(body: string): string {
  const firstLine = body.slice(0, body.search(/\r?\n|$/));
  const count = (ch: string) => firstLine.split(ch).length - 1;
  if (count('\t') > count(',') && count('\t') > count(';')) return '\t';
  return count(';') > count(',') ? ';' : ',';
}
