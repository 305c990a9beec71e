// Reads an .apkg with the independent npm reader `anki-reader` (ESM only, hence a child process
// rather than an import inside jest) and prints what it sees as JSON on stdout.
import { Blob } from 'node:buffer';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { readAnkiPackage } from 'anki-reader';

const bytes = readFileSync(process.argv[2]);
const { collection, media } = await readAnkiPackage(new Blob([bytes]));
const decks = Object.values(collection.getDecks()).map((deck) => ({
  name: deck.getName(),
  description: deck.getDescription(),
  cards: Object.values(deck.getCards()).map((card) => ({
    fields: card.getFields(),
    front: card.getFront(),
    back: card.getBack(),
    model: card.getModel().getName(),
    questions: card.getQuestions().length,
  })),
}));
process.stdout.write(
  JSON.stringify({
    version: collection.getVersion(),
    tags: collection.getTags(),
    media: Object.keys(media),
    decks,
  }),
);
