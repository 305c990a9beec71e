import { randomUUID } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { AppError } from '@lingua/errors';
import { sendData } from '@lingua/openapi';
import { newCard, contentUpdate } from '../../domain/cards/card-fields';
import { levelInfo } from '../../domain/cards/cefr';
import { dueWindow, reviewStatus } from '../../domain/cards/review-status';
import { buildQuestion } from '../../domain/questions/build-question';
import { fillInBlankText } from '../../domain/questions/fill-in-blank';
import { optimalReviewMode } from '../../domain/questions/question-types';
import { reviewCard } from '../../domain/review-card.use-case';
import { gradeFromConfidence } from '../../domain/scheduling/grade';
import {
  catalogueCard,
  dueCardJson,
  flashcardFull,
  flashcardPublic,
  flashcardWritten,
} from './card.presenter';
import {
  FavoriteResult,
  FlashcardFull,
  FlashcardList,
  FlashcardWritten,
  NextReview,
  QuestionResult,
  ReviewModeDecision,
  ReviewResult,
} from './card.responses';
import { catalogueCardRoutes, isCatalogueRequest } from './catalogue-cards.routes';
import type { FlashcardsDeps } from './deps';
import {
  CardIdParams,
  DueQuery,
  FlashcardBody,
  FlashcardUpdateBody,
  ListFlashcardsQuery,
  OptimalReviewModeBody,
  QuestionBody,
  ReviewBody,
} from './flashcards.schemas';
import { sendSuccessJson } from './send-json';
import { validate } from './validate';

/** Group B lists are not paginated by the spec: the newest cards up to this many are returned. */
export const GROUP_B_LIST_CAP = 1000;

const notFound = () => new AppError('NOT_FOUND', 'Flashcard not found');

/**
 * `/api/flashcards`: Group B exactly as the spec, with the Group C face on the same paths. A request
 * that uses a Group C-only feature is answered by the Group C handlers in the catalogue envelope.
 */
export function flashcardsRouter(deps: FlashcardsDeps): Router {
  const router = Router();
  const catalogue = catalogueCardRoutes(deps);
  const userId = (res: Response) => deps.userIdOf(res);
  const cardIdOf = (req: Request) => validate(CardIdParams, req.params).id;

  router.use((req, res, next) => {
    if (isCatalogueRequest(req)) {
      res.locals.envelopeStyle = 'catalogue';
      return deps.requireUser(req, res, next);
    }
    deps.groupBUser(req, res, next);
  });

  router.post('/batch', catalogue.batch);

  router.get('/', async (req, res) => {
    if (isCatalogueRequest(req)) return catalogue.list(req, res);
    const q = validate(ListFlashcardsQuery, req.query);
    const { items, total } = await deps.cards.list(
      userId(res),
      {
        setId: undefined,
        ...(q.search && { search: q.search, caseSensitive: true }),
        ...(q.favoritesOnly && { favorite: true }),
        masteredAt: 0,
      },
      { skip: 0, limit: GROUP_B_LIST_CAP },
    );
    // both faces on one path: Group B's flashcards/count and Group C's cards/pagination (one page of
    // up to GROUP_B_LIST_CAP newest cards)
    sendData(res, FlashcardList, {
      flashcards: items.map(flashcardPublic),
      count: items.length,
      cards: items.map(catalogueCard),
      pagination: {
        page: 1,
        limit: GROUP_B_LIST_CAP,
        total,
        totalPages: Math.ceil(total / GROUP_B_LIST_CAP),
      },
    });
  });

  router.get('/due', async (req, res) => {
    const q = validate(DueQuery, req.query);
    const now = deps.clock.now();
    const window = dueWindow(now, q);
    const cards = window
      ? await deps.cards.due(userId(res), { ...window, favoritesOnly: q.favoritesOnly, limit: q.limit })
      : [];
    // assembled from the cards' remembered JSON (the hot path of a study app), same bytes as sendSuccess
    const flashcards = cards.map((c) => dueCardJson(c, now)).join(',');
    sendSuccessJson(res, `{"flashcards":[${flashcards}],"count":${cards.length}}`);
  });

  router.get('/next-review', async (_req, res) => {
    const now = deps.clock.now();
    const [card] = await deps.cards.due(userId(res), { to: new Date(8.64e15), limit: 1 });
    if (!card) return sendData(res, NextReview, null, { message: 'No flashcards to review' });
    const status = reviewStatus(card.nextReviewDate, now);
    sendData(res, NextReview, {
      flashcard: flashcardFull(card),
      nextReviewDate: card.nextReviewDate,
      isDue: card.nextReviewDate.getTime() <= now.getTime(),
      ...status,
      ...levelInfo(card.difficultyLevel),
      masteryLevel: card.masteryLevel,
    });
  });

  router.get('/:id', async (req, res) => {
    const card = await deps.cards.findActive(userId(res), cardIdOf(req));
    if (!card) throw notFound();
    sendData(res, FlashcardFull, flashcardFull(card));
  });

  router.post('/', async (req, res) => {
    if (isCatalogueRequest(req)) return catalogue.create(req, res);
    const body = validate(FlashcardBody, req.body);
    const uid = userId(res);
    const existing = await deps.cards.findDuplicate(uid, body.word);
    if (existing) {
      // spec: a duplicate is 200 with success false, isDuplicate and the existing card
      res.status(200).json({
        success: false,
        error: `A flashcard for "${existing.word}" already exists`,
        isDuplicate: true,
        existingCard: flashcardFull(existing),
      });
      return;
    }
    const card = await deps.cards.insert(
      newCard(
        { ...body, setId: null } as never,
        { id: randomUUID(), userId: uid, setId: null },
        deps.clock.now(),
      ),
    );
    sendData(res, FlashcardFull, flashcardFull(card), { message: 'Flashcard created successfully' });
  });

  // one update for both faces: any subset of either group's fields, validated where present; the
  // answer carries both (FlashcardWritten), in the envelope of the face the body chose
  router.put('/:id', async (req, res) => {
    const id = cardIdOf(req);
    const body = validate(FlashcardUpdateBody, req.body);
    const uid = userId(res);
    let card;
    if (isCatalogueRequest(req)) card = await catalogue.update(uid, id, body);
    else {
      if (!(await deps.cards.findActive(uid, id))) throw notFound();
      if (body.word !== undefined && (await deps.cards.findDuplicate(uid, body.word, id)))
        throw new AppError('CONFLICT', `Another flashcard for "${body.word}" already exists`);
      const { example, exampleSentence, setId: _setId, ...rest } = body;
      card = await deps.cards.update(uid, id, {
        ...contentUpdate({
          ...rest,
          ...((example ?? exampleSentence) !== undefined && { example: example ?? exampleSentence }),
        }),
        updatedAt: deps.clock.now(),
      });
      if (!card) throw notFound();
    }
    sendData(res, FlashcardWritten, flashcardWritten(card), { message: 'Flashcard updated successfully' });
  });

  router.delete('/:id', async (req, res) => {
    const card = await deps.cards.update(userId(res), cardIdOf(req), {
      isArchived: true,
      updatedAt: deps.clock.now(),
    });
    if (!card) throw notFound();
    res.status(200).json({ success: true, message: 'Flashcard deleted successfully' });
  });

  router.post('/:id/favorite', async (req, res) => {
    const id = cardIdOf(req);
    const uid = userId(res);
    for (let attempt = 0; attempt < 5; attempt++) {
      const card = await deps.cards.findActive(uid, id);
      if (!card) throw notFound();
      const updated = await deps.cards.update(
        uid,
        id,
        { isFavorite: !card.isFavorite, updatedAt: deps.clock.now() },
        { where: { isFavorite: card.isFavorite } },
      );
      if (updated) {
        const message = updated.isFavorite ? 'Added to favorites' : 'Removed from favorites';
        return sendData(res, FavoriteResult, { isFavorite: updated.isFavorite }, { message });
      }
    }
    throw new AppError('CONFLICT', 'The card changed concurrently; try again');
  });

  router.post('/:id/review', async (req, res) => {
    const id = cardIdOf(req);
    const { confidence } = validate(ReviewBody, req.body);
    const { card, outcome } = await reviewCard(
      {
        userId: userId(res),
        cardId: id,
        grade: gradeFromConfidence(confidence),
        rating: confidence,
        // spec, Group B: the 2^n-day schedule
        algorithm: 'exponential',
      },
      deps,
    );
    sendData(
      res,
      ReviewResult,
      {
        flashcard: flashcardFull(card),
        wasCorrect: outcome.correct,
        nextReviewDate: card.nextReviewDate,
        intervalDays: card.intervalDays,
        repetitions: card.repetitions,
        easinessFactor: card.easinessFactor,
        masteryLevel: card.masteryLevel,
      },
      { message: 'Review recorded' },
    );
  });

  router.post('/:id/optimal-review-mode', async (req, res) => {
    const id = cardIdOf(req);
    const { learnerLevel } = validate(OptimalReviewModeBody, req.body);
    const card = await deps.cards.findActive(userId(res), id);
    if (!card) throw notFound();
    sendData(res, ReviewModeDecision, optimalReviewMode(learnerLevel, card));
  });

  router.post('/:id/question', async (req, res) => {
    const id = cardIdOf(req);
    const body = validate(QuestionBody, req.body);
    const uid = userId(res);
    let card = await deps.cards.findActive(uid, id);
    if (!card) throw notFound();
    const mode = body.learnerLevel ? optimalReviewMode(body.learnerLevel, card) : undefined;
    const type = body.questionType ?? mode?.questionType ?? 'flashcard';
    if (mode && !mode.availableTypes.includes(type))
      throw new AppError(
        'VALIDATION_ERROR',
        `Question type ${type} is not available for a ${mode.learnerLevel} learner on this word`,
        {
          details: { questionType: [`must be one of ${mode.availableTypes.join(', ')}`] },
        },
      );
    if (type === 'fill_in_blank' && !card.filledQuestionText) {
      // spec: generated by the service when empty, and stored
      card = (await deps.cards.update(uid, id, { filledQuestionText: fillInBlankText(card).text })) ?? card;
    }
    const distractors = type === 'multiple_choice' ? await deps.cards.otherTranslations(uid, id, 10) : [];
    sendData(res, QuestionResult, {
      question: buildQuestion(type, card, distractors),
      ...(mode && { situation: mode.situation, availableTypes: mode.availableTypes }),
    });
  });

  return router;
}
