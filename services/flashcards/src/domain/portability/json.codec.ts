import { MalformedFileError, PORTABLE_FIELDS, type PortableCard, type RawRow } from './portable-card';

export const JSON_EXPORT_VERSION = 1;

/** Our JSON export: a small header plus the cards, stable field order. */
export function encodeJson(
  cards: readonly PortableCard[],
  meta: { exportedAt: Date; setName?: string },
): string {
  const ordered = cards.map((card) =>
    Object.fromEntries(PORTABLE_FIELDS.filter((f) => card[f] !== undefined).map((f) => [f, card[f]])),
  );
  return JSON.stringify(
    {
      version: JSON_EXPORT_VERSION,
      exportedAt: meta.exportedAt.toISOString(),
      ...(meta.setName ? { set: { name: meta.setName } } : {}),
      count: cards.length,
      cards: ordered,
    },
    null,
    2,
  );
}

/** A card larger than this (as JSON text) cannot be valid; the file is refused rather than held. */
export const MAX_JSON_ROW_CHARS = 1024 * 1024;
/** Text outside the cards (the header of our export, separators); more is not one of our files. */
const MAX_SKELETON_CHARS = 1024 * 1024;

const SHAPE_ERROR = 'The JSON file must be an array of cards or an object with a "cards" array';
const malformed = (err: unknown) =>
  new MalformedFileError(`The JSON file is malformed: ${(err as Error).message}`);

const toRow = (item: unknown, index: number): RawRow => ({
  row: index + 1,
  data:
    item && typeof item === 'object' && !Array.isArray(item)
      ? (item as Record<string, unknown>)
      : { value: item },
});

/**
 * Reads our JSON export, or a bare array of card objects, as the text arrives: each element of the
 * cards array is cut out and parsed on its own, so memory holds one card's text at a time instead of
 * the whole file and its object tree. Everything outside the elements (with each element replaced by
 * `0`) is kept as a small skeleton and parsed at the end, so a file is accepted exactly when it is
 * valid JSON of the right shape. `write` returns the rows completed by a chunk; `end` checks the rest.
 */
export class JsonCardScanner {
  private readonly stack: ('{' | '[')[] = [];
  private inString = false;
  private escaped = false;
  /** The string just read at depth 1 of the top object (a candidate key) and the key being read. */
  private stringText = '';
  private pendingKey: string | undefined;
  /** Depth of the cards array's elements; 0 until it opens. */
  private cardsDepth = 0;
  private cardsSeen = false;
  private element: string[] | undefined;
  private elementChars = 0;
  private skeleton = '';
  private lastWasSpace = false;
  private rows = 0;

  write(text: string): RawRow[] {
    const out: RawRow[] = [];
    let elementStart = this.element ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      const inElement = this.element !== undefined;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        if (!inElement) this.keep(ch);
        if (!inElement && this.stack.length === 1 && this.stack[0] === '{') this.stringText += ch;
        continue;
      }
      const depth = this.stack.length;
      if (inElement && depth === this.cardsDepth && (ch === ',' || ch === ']')) {
        this.element!.push(text.slice(elementStart, i));
        out.push(this.finishElement());
        elementStart = -1;
      } else if (
        !inElement &&
        depth === this.cardsDepth &&
        this.cardsDepth > 0 &&
        !isSpace(ch) &&
        ch !== ',' &&
        ch !== ']'
      ) {
        this.element = [];
        this.elementChars = 0;
        elementStart = i;
        this.keep('0');
      }
      const nowInElement = this.element !== undefined;
      switch (ch) {
        case '"':
          this.inString = true;
          if (depth === 1 && this.stack[0] === '{' && !nowInElement) this.stringText = '"';
          break;
        case ':':
          if (depth === 1 && this.stack[0] === '{') this.pendingKey = this.stringText;
          break;
        case ',':
          if (depth === 1) this.pendingKey = undefined;
          break;
        case '{':
        case '[':
          if (!nowInElement && ch === '[' && this.opensCards(depth)) {
            this.cardsDepth = depth + 1;
            this.cardsSeen = true;
          }
          this.stack.push(ch);
          break;
        case '}':
        case ']':
          if (!nowInElement && depth === this.cardsDepth) this.cardsDepth = 0;
          this.stack.pop();
          break;
      }
      if (!nowInElement) this.keep(ch);
    }
    if (this.element && elementStart >= 0) this.element.push(text.slice(elementStart));
    if (this.element) {
      this.elementChars += elementStart >= 0 ? text.length - elementStart : 0;
      if (this.elementChars > MAX_JSON_ROW_CHARS) throw this.tooLarge();
    }
    return out;
  }

  /** Checks the whole file (structure and shape) once its last chunk was written. */
  end(): void {
    if (this.element || this.inString || this.stack.length > 0)
      throw new MalformedFileError('The JSON file is malformed: it ends too early');
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.skeleton);
    } catch (err) {
      throw malformed(err);
    }
    const shapeOk = Array.isArray(parsed)
      ? true
      : !!parsed && typeof parsed === 'object' && Array.isArray((parsed as { cards?: unknown }).cards);
    if (!shapeOk || (!Array.isArray(parsed) && !this.cardsSeen)) throw new MalformedFileError(SHAPE_ERROR);
  }

  /** Whether a `[` at this depth opens the cards: the top-level array, or "cards" of the top object. */
  private opensCards(depth: number): boolean {
    if (depth === 0) return true;
    if (depth !== 1 || this.stack[0] !== '{' || this.pendingKey === undefined) return false;
    let key: unknown;
    try {
      key = JSON.parse(this.pendingKey);
    } catch {
      return false; // the skeleton's parse reports it
    }
    if (key !== 'cards') return false;
    if (this.cardsSeen) throw new MalformedFileError('The JSON file has more than one "cards" array');
    return true;
  }

  private finishElement(): RawRow {
    const text = this.element!.join('');
    this.element = undefined;
    if (text.length > MAX_JSON_ROW_CHARS) throw this.tooLarge();
    let item: unknown;
    try {
      item = JSON.parse(text);
    } catch (err) {
      throw malformed(err);
    }
    return toRow(item, this.rows++);
  }

  private tooLarge() {
    return new MalformedFileError(
      `Card ${this.rows + 1} of the JSON file is larger than ${MAX_JSON_ROW_CHARS / 1024 / 1024} MB`,
    );
  }

  /** Appends to the skeleton; runs of white space become one space (never two tokens made one). */
  private keep(ch: string): void {
    if (!this.inString && isSpace(ch)) {
      if (this.lastWasSpace) return;
      this.lastWasSpace = true;
      this.skeleton += ' ';
    } else {
      this.lastWasSpace = false;
      this.skeleton += ch;
    }
    if (this.skeleton.length > MAX_SKELETON_CHARS)
      throw new MalformedFileError('The JSON file holds more than cards and a short header');
  }
}

const isSpace = (ch: string) => ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t';

/** Reads our JSON export, or a bare array of card objects. Invalid JSON or another shape is malformed. */
export function decodeJson(text: string): RawRow[] {
  const scanner = new JsonCardScanner();
  const rows = scanner.write(text.replace(/^\uFEFF/, ''));
  scanner.end();
  return rows;
}

/** decodeJson for text arriving in pieces: yields each row as soon as its element is complete. */
export async function* decodeJsonStream(text: AsyncIterable<string>): AsyncGenerator<RawRow> {
  const scanner = new JsonCardScanner();
  let first = true;
  for await (let chunk of text) {
    if (first) {
      chunk = chunk.replace(/^\uFEFF/, '');
      first = false;
    }
    yield* scanner.write(chunk);
  }
  scanner.end();
}
