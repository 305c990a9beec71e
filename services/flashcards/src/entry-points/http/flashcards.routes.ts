import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { type ApiDocs, type DeclaredRoute, declareRoutes, sendData, successEnvelope } from '@lingua/openapi';
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
  BatchResult,
  CatalogueCardResult,
  DueList,
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
import { BatchBody, CatalogueCreateBody, CatalogueListQuery } from './catalogue-cards.schemas';
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

/** The errors of a route that names a card; a review adds its conflict. */
export const CARD_NOT_FOUND = { 404: 'Flashcard not found (or not the caller’s)' };
export const REVIEW_ERRORS = {
  ...CARD_NOT_FOUND,
  409: 'The card’s review count is not the timesReviewed sent (reviewed elsewhere since: reload the card), or it is being reviewed concurrently',
};

const GROUP_C_RULE =
  'Both faces on one path: a request is Group C when it uses a Group C-only feature (page, limit, setId, tags, difficulty, mastered, favorite or dueForReview in the query; setId in a new card; setId, exampleSentence, tags or difficulty in an update), and is then answered in the Group C envelope (errors with a catalogue code); Group B otherwise (errors as plain text). Responses carry both groups’ fields.';
const sampleCard = {
  word: 'desk',
  translation: 'Schreibtisch',
  definition: 'A table for work or study',
  partOfSpeech: 'noun',
  example: 'My desk is by the window.',
  difficultyLevel: 'A2',
};

/** POST /api/flashcards with a word the user already has: 200, success false, the existing card. */
const DuplicateCard = z.object({
  success: z.literal(false),
  error: z.string(),
  isDuplicate: z.literal(true),
  existingCard: FlashcardFull,
});

const P = '/api/flashcards';

/**
 * `/api/flashcards`: Group B exactly as the spec, with the Group C face on the same paths. A request
 * that uses a Group C-only feature is answered by the Group C handlers in the catalogue envelope.
 */
export function flashcardsRouter(deps: FlashcardsDeps, docs: ApiDocs): Router {
  const router = Router();
  const catalogue = catalogueCardRoutes(deps);
  const userId = (res: Response) => deps.userIdOf(res);
  const cardIdOf = (req: Request) => validate(CardIdParams, req.params).id;
  const cardsArea = { tags: ['flashcards'], auth: 'access' as const };

  router.use((req, res, next) => {
    if (isCatalogueRequest(req)) {
      res.locals.envelopeStyle = 'catalogue';
      return deps.requireUser(req, res, next);
    }
    deps.groupBUser(req, res, next);
  });

  const routes: DeclaredRoute[] = [
    {
      ...cardsArea,
      method: 'get',
      path: P,
      summary: 'List flashcards (Group B: search, favoritesOnly; Group C: filters and pagination)',
      query: ListFlashcardsQuery,
      response: FlashcardList,
      alsoStyle: 'catalogue',
      description: `${GROUP_C_RULE} Every answer has Group B's flashcards and count and Group C's cards and pagination (without a Group C query: page 1 of the newest 1000 cards). The Group C query is ${Object.keys(CatalogueListQuery.shape).join(', ')}.`,
      handler: async (req, res) => {
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
      },
    },
    {
      ...cardsArea,
      method: 'get',
      path: `${P}/due`,
      summary: 'Cards due for review, with review status',
      description:
        '"Today" (includeToday, due_today, overdue days) is the user’s day: the profile’s timezone, else the request’s X-Timezone, else UTC. Needs an access token (Authorization: Bearer).',
      query: DueQuery,
      response: DueList,
      handler: async (req, res) => {
        const q = validate(DueQuery, req.query);
        const { cards, now, zone } = await dueCards(userId(res), { ...q, zone: requestZone(req) }, deps);
        // assembled from the cards' remembered JSON (the hot path of a study app), same bytes as sendSuccess
        const flashcards = cards.map((c) => dueCardJson(c, now, zone)).join(',');
        sendSuccessJson(res, `{"flashcards":[${flashcards}],"count":${cards.length}}`);
      },
    },
    {
      ...cardsArea,
      method: 'get',
      path: `${P}/next-review`,
      summary: 'The next card due, with level and overdue information',
      response: NextReview,
      handler: async (req, res) => {
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
      },
    },
    {
      ...cardsArea,
      method: 'get',
      path: `${P}/:id`,
      summary: 'A flashcard',
      params: CardIdParams,
      response: FlashcardFull,
      errors: CARD_NOT_FOUND,
      handler: async (req, res) => {
        sendData(res, FlashcardFull, flashcardFull(await getCard(userId(res), cardIdOf(req), deps)));
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: P,
      summary: 'Create a flashcard (Group B; with setId: Group C, 201)',
      body: z.union([FlashcardBody, CatalogueCreateBody]),
      example: sampleCard,
      response: FlashcardFull,
      alsoStyle: 'catalogue',
      bodies: {
        200: {
          description:
            'Group B: the new card; or, for a word the user already has, success false with isDuplicate and the existing card',
          body: z.union([successEnvelope('flashcards', FlashcardFull), DuplicateCard]),
        },
        201: {
          description: 'Group C (setId in the body): the new card',
          body: successEnvelope('catalogue', CatalogueCardResult),
        },
      },
      errors: { 404: 'Set not found (Group C)', 409: 'The set already has this word (Group C)' },
      description: `A duplicate word (case-insensitive, non-archived) answers 200 with success false, isDuplicate and existingCard. ${GROUP_C_RULE}`,
      handler: async (req, res) => {
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
      },
    },
    {
      ...cardsArea,
      method: 'put',
      path: `${P}/:id`,
      summary: 'Update a flashcard (any subset of the fields)',
      params: CardIdParams,
      body: FlashcardUpdateBody,
      example: { translation: 'desk' },
      response: FlashcardWritten,
      alsoStyle: 'catalogue',
      errors: { 404: 'Flashcard (or Group C: the new set) not found', 409: 'Another card has this word' },
      description: `Accepts any non-empty subset of the Group B and Group C fields, validates the fields present and leaves the others as they are ({"translation":"desk"} changes only the translation). example and exampleSentence are one field. The answer is the Group B full card with the Group C card under card. ${GROUP_C_RULE}`,
      // one update for both faces: any subset of either group's fields, validated where present; the
      // answer carries both (FlashcardWritten), in the envelope of the face the body chose
      handler: async (req, res) => {
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
        sendData(res, FlashcardWritten, flashcardWritten(card), {
          message: 'Flashcard updated successfully',
        });
      },
    },
    {
      ...cardsArea,
      method: 'delete',
      path: `${P}/:id`,
      summary: 'Delete (archive) a flashcard',
      params: CardIdParams,
      messageOnly: true,
      errors: CARD_NOT_FOUND,
      handler: async (req, res) => {
        await archiveCard(userId(res), cardIdOf(req), deps);
        res.status(200).json({ success: true, message: 'Flashcard deleted successfully' });
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: `${P}/:id/favorite`,
      summary: 'Toggle favourite',
      params: CardIdParams,
      response: FavoriteResult,
      errors: CARD_NOT_FOUND,
      handler: async (req, res) => {
        const isFavorite = await toggleFavorite(userId(res), cardIdOf(req), deps);
        const message = isFavorite ? 'Added to favorites' : 'Removed from favorites';
        sendData(res, FavoriteResult, { isFavorite }, { message });
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: `${P}/:id/review`,
      summary: 'Record a review (confidence 0 wrong, 1-2 right; 2^n-day schedule)',
      params: CardIdParams,
      body: ReviewBody,
      example: { confidence: 2, timesReviewed: 3 },
      response: ReviewResult,
      errors: REVIEW_ERRORS,
      handler: async (req, res) => {
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
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: `${P}/:id/optimal-review-mode`,
      summary: 'Question type for the learner level and the word level',
      params: CardIdParams,
      body: OptimalReviewModeBody,
      response: ReviewModeDecision,
      errors: CARD_NOT_FOUND,
      handler: async (req, res) => {
        const id = cardIdOf(req);
        const { learnerLevel } = validate(OptimalReviewModeBody, req.body);
        sendData(res, ReviewModeDecision, await cardReviewMode(userId(res), id, learnerLevel, deps));
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: `${P}/:id/question`,
      summary: 'Generate a question (fill-in-the-blank blanks the inflected form)',
      params: CardIdParams,
      body: QuestionBody,
      response: QuestionResult,
      errors: CARD_NOT_FOUND,
      handler: async (req, res) => {
        const id = cardIdOf(req);
        const body = validate(QuestionBody, req.body);
        const { question, mode } = await questionFor(userId(res), id, body, deps);
        sendData(res, QuestionResult, {
          question,
          ...(mode && { situation: mode.situation, availableTypes: mode.availableTypes }),
        });
      },
    },
    {
      ...cardsArea,
      method: 'post',
      path: `${P}/batch`,
      summary: 'Batch create, update, delete or move cards',
      body: BatchBody,
      response: BatchResult,
      style: 'catalogue',
      errors: { 404: 'Target set not found' },
      handler: catalogue.batch,
    },
  ];
  declareRoutes(router, docs, routes, P);
  return router;
}
