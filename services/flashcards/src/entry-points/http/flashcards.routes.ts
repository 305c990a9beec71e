import { type Request, type Response, Router } from 'express';
import { sendData } from '@lingua/openapi';
import { levelInfo } from '../../domain/cards/cefr';
import {
  archiveCard,
  cardReviewMode,
  createCard,
  dueCards,
  getCard,
  listCards,
  nextCardToReview,
  questionFor,
  toggleFavorite,
  updateCard,
} from '../../domain/cards/manage-cards.use-case';
import { dayDiffIn, reviewStatusIn } from '../../domain/cards/review-status';
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
import { sendSuccessJson } from '@lingua/http';
import { requestZone } from './request-zone';
import { validate } from './validate';

/** Group B lists are not paginated by the spec: the newest cards up to this many are returned. */
export const GROUP_B_LIST_CAP = 1000;

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
    const { items, total } = await listCards(userId(res), q, GROUP_B_LIST_CAP, deps);
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
    const { cards, now, zone } = await dueCards(userId(res), { ...q, zone: requestZone(req) }, deps);
    // assembled from the cards' remembered JSON (the hot path of a study app), same bytes as sendSuccess
    const flashcards = cards.map((c) => dueCardJson(c, now, zone)).join(',');
    sendSuccessJson(res, `{"flashcards":[${flashcards}],"count":${cards.length}}`);
  });

  router.get('/next-review', async (req, res) => {
    const { card, now, zone } = await nextCardToReview(userId(res), deps, requestZone(req));
    if (!card) return sendData(res, NextReview, null, { message: 'No flashcards to review' });
    const status = reviewStatusIn(dayDiffIn(now, card.nextReviewDate, zone));
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
    sendData(res, FlashcardFull, flashcardFull(await getCard(userId(res), cardIdOf(req), deps)));
  });

  router.post('/', async (req, res) => {
    if (isCatalogueRequest(req)) return catalogue.create(req, res);
    const body = validate(FlashcardBody, req.body);
    const { card, duplicate } = await createCard(userId(res), body, deps);
    if (duplicate) {
      // spec: a duplicate is 200 with success false, isDuplicate and the existing card
      res.status(200).json({
        success: false,
        error: `A flashcard for "${card.word}" already exists`,
        isDuplicate: true,
        existingCard: flashcardFull(card),
      });
      return;
    }
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
      const { example, exampleSentence, setId: _setId, ...rest } = body;
      card = await updateCard(
        uid,
        id,
        {
          ...rest,
          ...((example ?? exampleSentence) !== undefined && { example: example ?? exampleSentence }),
        },
        deps,
      );
    }
    sendData(res, FlashcardWritten, flashcardWritten(card), { message: 'Flashcard updated successfully' });
  });

  router.delete('/:id', async (req, res) => {
    await archiveCard(userId(res), cardIdOf(req), deps);
    res.status(200).json({ success: true, message: 'Flashcard deleted successfully' });
  });

  router.post('/:id/favorite', async (req, res) => {
    const isFavorite = await toggleFavorite(userId(res), cardIdOf(req), deps);
    const message = isFavorite ? 'Added to favorites' : 'Removed from favorites';
    sendData(res, FavoriteResult, { isFavorite }, { message });
  });

  router.post('/:id/review', async (req, res) => {
    const id = cardIdOf(req);
    const { confidence, timesReviewed } = validate(ReviewBody, req.body);
    const { card, correct } = await reviewCard(
      {
        userId: userId(res),
        cardId: id,
        grade: gradeFromConfidence(confidence),
        rating: confidence,
        // spec, Group B: the 2^n-day schedule
        algorithm: 'exponential',
        timesReviewed,
        zone: requestZone(req),
      },
      deps,
    );
    sendData(
      res,
      ReviewResult,
      {
        flashcard: flashcardFull(card),
        wasCorrect: correct,
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
    sendData(res, ReviewModeDecision, await cardReviewMode(userId(res), id, learnerLevel, deps));
  });

  router.post('/:id/question', async (req, res) => {
    const id = cardIdOf(req);
    const body = validate(QuestionBody, req.body);
    const { question, mode } = await questionFor(userId(res), id, body, deps);
    sendData(res, QuestionResult, {
      question,
      ...(mode && { situation: mode.situation, availableTypes: mode.availableTypes }),
    });
  });

  return router;
}
