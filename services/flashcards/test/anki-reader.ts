import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export /** What the independent reader (anki-reader, in a child process) sees in a package. */
async function readWithAnkiReader(bytes: Uint8Array) {
  const dir = mkdtempSync(path.join(tmpdir(), 'apkg-'));
  const file = path.join(dir, 'deck.apkg');
  writeFileSync(file, bytes);
  const { stdout } = await run(
    process.execPath,
    [path.join(__dirname, 'portability.anki-reader.mjs'), file],
    {
      cwd: path.join(__dirname, '..'),
    },
  );
  return JSON.parse(stdout) as {
    version: number;
    tags: unknown;
    media: string[];
    decks: {
      name: string;
      description: string;
      cards: {
        fields: Record<string, string>;
        front: string;
        back: string;
        model: string;
        questions: number;
      }[];
    }[];
  };
}
