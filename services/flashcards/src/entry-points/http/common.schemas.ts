import { z } from 'zod';
import { CEFR_LEVELS, DIFFICULTIES } from '../../domain/cards/cefr';

/** A GUID path or body id (any version: ids from other systems are accepted as long as they are GUIDs). */
export const guid = z.guid('must be a GUID');

/**
 * A review's optional `timesReviewed`: the card's review count as the app saw it. It makes a retry safe
 * (the same answer to the same state is applied once).
 */
export const reviewedCount = z
  .number()
  .int()
  .min(0)
  .max(1_000_000_000)
  .meta({
    description:
      'The card’s timesReviewed as the app last saw it. When given, the answer applies to that state only: ' +
      'a retry after a lost answer gets the first answer again and changes nothing; another count answers 409.',
  });

/** A boolean in a query string: true/false/1/0. */
export const queryBool = z
  .enum(['true', 'false', '1', '0'], 'must be true or false')
  .transform((v) => v === 'true' || v === '1');

export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Tags: comma-separated in a query (`tags=a,b`), an array in a body. */
export const tag = z.string().trim().min(1).max(50);
export const tagsBody = z.array(tag).max(20);
export const tagsQuery = z
  .string()
  .max(1000)
  .transform((s) =>
    s
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  )
  .pipe(z.array(tag).max(20));

export const cefr = z.enum(CEFR_LEVELS, 'must be one of A1, A2, B1, B2, C1, C2');
export const difficulty = z.enum(DIFFICULTIES, 'must be beginner, intermediate or advanced');

// field limits: the spec's where it gives one, otherwise generous but finite
export const word = z.string().trim().min(1, 'is required').max(255);
export const translation = z.string().trim().min(1, 'is required').max(1000);
export const definition = z.string().trim().max(2000);
export const partOfSpeech = z.string().trim().max(50);
export const pronunciation = z.string().trim().max(255);
export const longText = z.string().trim().max(2000);
export const synonyms = z.array(z.string().trim().min(1).max(255)).max(50);
export const masteryLevel = z.number().int().min(0).max(100);

/** Page size default and cap for every Group C list. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const page = queryInt(1, 100_000).default(1);
export const limit = queryInt(1, MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE);
