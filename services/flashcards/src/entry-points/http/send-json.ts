import type { Response } from 'express';
import { type EnvelopeStyle, successBody } from '@lingua/http';

// a string no envelope field can hold (requestIds are plain tokens, messages are ours)
const SLOT = '\u0000data\u0000';
const QUOTED_SLOT = JSON.stringify(SLOT);

/**
 * sendSuccess for `data` that is already JSON text: the same status, headers and bytes as
 * `sendSuccess(res, JSON.parse(dataJson), options)`, without building and re-serialising the objects.
 */
export function sendSuccessJson(res: Response, dataJson: string, options: { message?: string } = {}) {
  const style = (res.locals.envelopeStyle as EnvelopeStyle | undefined) ?? 'catalogue';
  const envelope = JSON.stringify(successBody(style, SLOT, options.message));
  const at = envelope.indexOf(QUOTED_SLOT);
  const body = envelope.slice(0, at) + dataJson + envelope.slice(at + QUOTED_SLOT.length);
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.status(200).send(body);
}
