import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import type { Card, CardRepository, LearningProfileRepository } from '../ports';
import { buildQuestion, type Question } from '../questions/build-question';
import { fillInBlankText } from '../questions/fill-in-blank';
import { optimalReviewMode, type QuestionType, type ReviewModeDecision } from '../questions/question-types';
import { type CardContent, contentUpdate, newCard } from './card-fields';
import { zoneOf } from '../learning/calendar';
import { dueWindow } from './review-status';

type CardsDeps = { cards: CardRepository; clock: { now(): Date } };

const notFound = () => new AppError('NOT_FOUND', 'Flashcard not found');

/** The user's cards of Group B (no set), newest first, up to `cap`: one unpaginated list (spec). */
export async function listCards(
  userId: string,
  q: { search?: string | undefined; favoritesOnly?: boolean | undefined },
  cap: number,
  deps: Pick<CardsDeps, 'cards'>,
): Promise<{ items: Card[]; total: number }> {
  return deps.cards.list(
    userId,
    {
      setId: undefined,
      ...(q.search && { search: q.search, caseSensitive: true }),
      ...(q.favoritesOnly && { favorite: true }),
      masteredAt: 0,
    },
    { skip: 0, limit: cap },
  );
}

/**
 * Cards due today and/or overdue (as asked), "today" in the user's zone (profile, else the request's
 * X-Timezone, else UTC), with the time and zone they were judged in.
 */
export async function dueCards(
  userId: string,
  q: {
    includeToday: boolean;
    includeOverdue: boolean;
    favoritesOnly?: boolean | undefined;
    limit: number;
    zone?: string | undefined;
  },
  deps: CardsDeps & { profiles?: Pick<LearningProfileRepository, 'get'> },
): Promise<{ cards: Card[]; now: Date; zone: string }> {
  const now = deps.clock.now();
  const profile = await deps.profiles?.get(userId);
  const zone = zoneOf(profile?.timezone, q.zone);
  const window = dueWindow(now, q, zone);
  const cards = window
    ? await deps.cards.due(userId, { ...window, favoritesOnly: q.favoritesOnly, limit: q.limit })
    : [];
  return { cards, now, zone };
}

/** The card due first (overdue or not), if the user has any. */
export async function nextCardToReview(
  userId: string,
  deps: CardsDeps & { profiles?: Pick<LearningProfileRepository, 'get'> },
  requestZone?: string,
): Promise<{ card: Card | undefined; now: Date; zone: string }> {
  const now = deps.clock.now();
  const [[card], profile] = await Promise.all([
    deps.cards.due(userId, { to: new Date(8.64e15), limit: 1 }),
    deps.profiles?.get(userId),
  ]);
  // its status ("due today", overdue days) on the user's calendar
  return { card, now, zone: zoneOf(profile?.timezone, requestZone) };
}

/** One of the user's active cards; NOT_FOUND otherwise. */
export async function getCard(userId: string, id: string, deps: Pick<CardsDeps, 'cards'>): Promise<Card> {
  const card = await deps.cards.findActive(userId, id);
  if (!card) throw notFound();
  return card;
}

/** A Group B card (no set), unless the user has one with the word already: then that one. */
export async function createCard(
  userId: string,
  content: Partial<CardContent> & Pick<CardContent, 'word' | 'translation'>,
  deps: CardsDeps,
): Promise<{ card: Card; duplicate: boolean }> {
  const existing = await deps.cards.findDuplicate(userId, content.word);
  if (existing) return { card: existing, duplicate: true };
  const card = await deps.cards.insert(
    newCard(
      { ...content, setId: null } as never,
      { id: randomUUID(), userId, setId: null },
      deps.clock.now(),
    ),
  );
  return { card, duplicate: false };
}

/** Group B rules of an update: the word must not repeat in another of the user's cards. */
export async function updateCard(
  userId: string,
  id: string,
  change: Partial<CardContent>,
  deps: CardsDeps,
): Promise<Card> {
  if (!(await deps.cards.findActive(userId, id))) throw notFound();
  if (change.word !== undefined && (await deps.cards.findDuplicate(userId, change.word, id)))
    throw new AppError('CONFLICT', `Another flashcard for "${change.word}" already exists`);
  const card = await deps.cards.update(userId, id, { ...contentUpdate(change), updatedAt: deps.clock.now() });
  if (!card) throw notFound();
  return card;
}

/** Deletes a card for the user (archived: its reviews keep their meaning); NOT_FOUND otherwise. */
export async function archiveCard(userId: string, id: string, deps: CardsDeps): Promise<void> {
  const card = await deps.cards.update(userId, id, { isArchived: true, updatedAt: deps.clock.now() });
  if (!card) throw notFound();
}

/** Flips the favourite flag (compare-and-set, so two concurrent toggles both count). */
export async function toggleFavorite(userId: string, id: string, deps: CardsDeps): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const card = await deps.cards.findActive(userId, id);
    if (!card) throw notFound();
    const updated = await deps.cards.update(
      userId,
      id,
      { isFavorite: !card.isFavorite, updatedAt: deps.clock.now() },
      { where: { isFavorite: card.isFavorite } },
    );
    if (updated) return updated.isFavorite;
  }
  throw new AppError('CONFLICT', 'The card changed concurrently; try again');
}

/** Which review mode suits a learner of this level on this card. */
export async function cardReviewMode(
  userId: string,
  id: string,
  learnerLevel: Parameters<typeof optimalReviewMode>[0],
  deps: Pick<CardsDeps, 'cards'>,
): Promise<ReviewModeDecision> {
  return optimalReviewMode(learnerLevel, await getCard(userId, id, deps));
}

/**
 * A question on the card: of the type asked, or the one suiting the learner's level (which must
 * then allow the type asked). A fill-in-the-blank text is generated and stored when the card has none.
 */
export async function questionFor(
  userId: string,
  id: string,
  ask: {
    questionType?: QuestionType | undefined;
    learnerLevel?: Parameters<typeof optimalReviewMode>[0] | undefined;
  },
  deps: Pick<CardsDeps, 'cards'>,
): Promise<{ question: Question; mode: ReviewModeDecision | undefined }> {
  let card = await getCard(userId, id, deps);
  const mode = ask.learnerLevel ? optimalReviewMode(ask.learnerLevel, card) : undefined;
  const type = ask.questionType ?? mode?.questionType ?? 'flashcard';
  if (mode && !mode.availableTypes.includes(type))
    throw new AppError(
      'VALIDATION_ERROR',
      `Question type ${type} is not available for a ${mode.learnerLevel} learner on this word`,
      { details: { questionType: [`must be one of ${mode.availableTypes.join(', ')}`] } },
    );
  if (type === 'fill_in_blank' && !card.filledQuestionText) {
    // spec: generated by the service when empty, and stored
    card = (await deps.cards.update(userId, id, { filledQuestionText: fillInBlankText(card).text })) ?? card;
  }
  const distractors = type === 'multiple_choice' ? await deps.cards.otherTranslations(userId, id, 10) : [];
  return { question: buildQuestion(type, card, distractors), mode };
}
