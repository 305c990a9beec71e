import { type RequestHandler, Router } from 'express';
import { parseInput } from '@lingua/errors';
import { type ApiDocs, sendData } from '@lingua/openapi';
import {
  advancedDialogues,
  dialogueUsage,
  startDialoguePractice,
} from '../../domain/dialogue-practice.use-case';
import type { SubscriptionsContext } from '../../domain/ports';
import { callerOf } from './caller';
import { EmptyBody } from './dialogues.schemas';
import { AdvancedResult, PracticeResult, UsageResult } from './subscriptions.responses';

const BASE = '/api/v1/dialogues';

/** Dialogue practice gates of the spec's role table (3 a day for free users; advanced for subscribers). */
export function dialoguesRoutes(
  ctx: SubscriptionsContext,
  auth: { required: RequestHandler },
  docs: ApiDocs,
): Router {
  const router = Router();

  router.post(`${BASE}/practice`, auth.required, async (req, res) => {
    parseInput(EmptyBody, req.body ?? {});
    sendData(res, PracticeResult, await startDialoguePractice(callerOf(req, res, undefined), ctx), {
      status: 201,
    });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/practice`,
    summary: 'Start a basic dialogue practice (counts against the free daily limit)',
    auth: 'access',
    body: EmptyBody,
    response: PracticeResult,
    status: 201,
    errors: { 429: 'QUOTA_EXCEEDED: free daily practices used up' },
  });

  router.get(`${BASE}/usage`, auth.required, async (req, res) => {
    sendData(res, UsageResult, await dialogueUsage(callerOf(req, res, undefined), ctx));
  });
  docs.route({
    method: 'get',
    path: `${BASE}/usage`,
    summary: 'Dialogue practice usage today',
    auth: 'access',
    response: UsageResult,
  });

  router.get(`${BASE}/advanced`, auth.required, async (req, res) => {
    sendData(res, AdvancedResult, await advancedDialogues(callerOf(req, res, undefined), ctx));
  });
  docs.route({
    method: 'get',
    path: `${BASE}/advanced`,
    summary: 'Advanced dialogue scenarios (subscriber or admin)',
    auth: 'access',
    response: AdvancedResult,
    errors: { 403: 'SUBSCRIPTION_REQUIRED / SUBSCRIPTION_EXPIRED' },
  });

  return router;
}
