import { sendImmutableFile } from '@lingua/http';
import { type RequestHandler, Router } from 'express';
import { currentUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { ApiDocs } from '@lingua/openapi';
import type { AiDeps } from '../../domain/ai-deps';
import { analyzeSentence } from '../../domain/analyze-sentence.use-case';
import { analyzeText } from '../../domain/analyze-text.use-case';
import { generateCards } from '../../domain/generate-cards.use-case';
import { getQuota } from '../../domain/get-quota.use-case';
import { createImage, describeImage, getImage } from '../../domain/images.use-case';
import { lookupWord } from '../../domain/lookup-word.use-case';
import {
  AnalyzeSentenceBody,
  AnalyzeTextBody,
  CreateImageBody,
  DescribeImageBody,
  GenerateBody,
  GenerateResponse,
  ImageDescriptionResponse,
  ImageParams,
  ImageResponse,
  LookupBody,
  LookupResponse,
  QuotaResponse,
  SentenceAnalysisResponse,
  TextAnalysisResponse,
} from './ai.schemas';

const PROVIDER_ERRORS = {
  502: 'The AI provider failed or returned unusable output (SRV002)',
  503: 'The AI provider is unreachable, timed out, or cannot do this (SRV002)',
};
const QUOTA_ERROR = { 429: 'Quota exceeded (RATE002); details.resetAt and Retry-After say when it frees up' };

/** The /api/ai routes (Group C envelope); every one needs an access token. */
export function aiRoutes(auth: RequestHandler, deps: AiDeps, docs: ApiDocs): Router {
  const router = Router();
  const tags = ['AI'];

  router.post('/api/ai/generate', auth, async (req, res) => {
    const input = parseInput(GenerateBody, req.body);
    sendSuccess(res, await generateCards(currentUser(res).sub, input, deps));
  });
  docs.route({
    method: 'post',
    path: '/api/ai/generate',
    summary: 'Generate flashcards from a text or a theme',
    tags,
    auth: 'access',
    body: GenerateBody,
    response: GenerateResponse,
    errors: { ...QUOTA_ERROR, ...PROVIDER_ERRORS },
  });

  router.post('/api/ai/analyze-text', auth, (req, res) => {
    sendSuccess(res, analyzeText(parseInput(AnalyzeTextBody, req.body)));
  });
  docs.route({
    method: 'post',
    path: '/api/ai/analyze-text',
    summary: 'Difficulty, readability and words worth learning in an English text',
    tags,
    auth: 'access',
    body: AnalyzeTextBody,
    response: TextAnalysisResponse,
  });

  router.get('/api/ai/quota', auth, async (_req, res) => {
    sendSuccess(res, await getQuota(currentUser(res).sub, deps));
  });
  docs.route({
    method: 'get',
    path: '/api/ai/quota',
    summary: "The caller's AI generation quota today and look-up window",
    tags,
    auth: 'access',
    response: QuotaResponse,
  });

  // what each language gets from the offline provider (ADR 0033)
  const ANALYSIS_BY_LANGUAGE = [
    'Needs an access token (Authorization: Bearer). What each language gets from the offline (`local`)',
    'provider; a part whose data is not installed on the server is named in `unavailable` (never an',
    'error). Any other language answers 400',
    '(`reason: "unsupported_language"`).',
    '',
    '| language | spelling | grammar | lemma and partOfSpeech | high-value words |',
    '| --- | --- | --- | --- | --- |',
    '| en | Hunspell en_US | rules (agreement, articles, capitals, repetition, punctuation, spacing) | compromise + WordNet | SUBTLEX-US frequency |',
    '| de | Hunspell de_DE | – | Hunspell affix rules (partOfSpeech: nouns only, else null) | subtitle frequency, 10 000 forms |',
    '| fr | Hunspell fr | Grammalecte (grammar rules; typography off) | Apertium analyser (no tagger: an ambiguous word gets the reading its neighbours favour) | subtitle frequency, 10 000 forms |',
    '| es, it, pt, nl, ru | Hunspell | – | Apertium analyser (no tagger: an ambiguous word gets the reading its neighbours favour) | subtitle frequency, 10 000 forms |',
    '',
    'Levels are estimates from frequency ranks (outside English a known word beyond the 10 000 listed',
    'forms is given as C1). The `openai` provider answers no tokens (`unavailable: ["tokens"]`).',
  ].join('\n');

  router.post('/api/ai/analyze-sentence', auth, async (req, res) => {
    sendSuccess(res, await analyzeSentence(parseInput(AnalyzeSentenceBody, req.body), deps));
  });
  docs.route({
    method: 'post',
    path: '/api/ai/analyze-sentence',
    summary: 'Spelling, grammar, tokens with lemmas and high-value words of one sentence (cached 24 h)',
    description: ANALYSIS_BY_LANGUAGE,
    tags,
    auth: 'access',
    body: AnalyzeSentenceBody,
    example: { sentence: 'I has a desk by the window.', language: 'en' },
    response: SentenceAnalysisResponse,
    errors: PROVIDER_ERRORS,
  });

  router.post('/api/ai/lookup', auth, async (req, res) => {
    const input = parseInput(LookupBody, req.body);
    sendSuccess(res, await lookupWord(currentUser(res).sub, input, deps));
  });
  docs.route({
    method: 'post',
    path: '/api/ai/lookup',
    summary: 'Interactive word look-up (free: 5 per 3 hours, sliding window)',
    tags,
    auth: 'access',
    body: LookupBody,
    response: LookupResponse,
    errors: { ...QUOTA_ERROR, ...PROVIDER_ERRORS },
  });

  router.post('/api/ai/images/description', auth, async (req, res) => {
    sendSuccess(res, await describeImage(parseInput(DescribeImageBody, req.body), deps));
  });
  docs.route({
    method: 'post',
    path: '/api/ai/images/description',
    summary: 'Image stage 1: describe an example image for a word',
    tags,
    auth: 'access',
    body: DescribeImageBody,
    response: ImageDescriptionResponse,
    errors: PROVIDER_ERRORS,
  });

  router.post('/api/ai/images', auth, async (req, res) => {
    const input = parseInput(CreateImageBody, req.body);
    const image = await createImage(currentUser(res).sub, input, deps);
    res.location(image.url);
    sendSuccess(res, image, { status: 201 });
  });
  docs.route({
    method: 'post',
    path: '/api/ai/images',
    summary: 'Image stage 2: render and store the image of a description',
    tags,
    auth: 'access',
    body: CreateImageBody,
    response: ImageResponse,
    status: 201,
    errors: { ...QUOTA_ERROR, ...PROVIDER_ERRORS },
  });

  router.get('/api/ai/images/:id', auth, async (req, res) => {
    const { id } = parseInput(ImageParams, req.params);
    const image = await getImage(id, deps);
    // images never change; private: only the signed-in app should keep them
    await sendImmutableFile(req, res, {
      ...image,
      name: id,
      cacheControl: 'private, max-age=31536000, immutable',
    });
  });
  docs.route({
    method: 'get',
    path: '/api/ai/images/:id',
    summary: 'The stored image file, with its content type (any signed-in user; ids are random UUIDs)',
    tags,
    auth: 'access',
    params: ImageParams,
    download: { 'image/png': 'the image file' },
    errors: { 404: 'No such image' },
  });

  return router;
}
