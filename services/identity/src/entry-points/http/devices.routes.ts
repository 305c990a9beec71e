import { type RequestHandler, Router } from 'express';
import { z } from 'zod';
import { currentUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import { type ApiDocs, declareRoutes } from '@lingua/openapi';
import { type Device, listDevices, registerDevice, removeDevice } from '../../domain/devices.use-case';
import type { IdentityDeps } from '../../domain/identity-deps';
import { DeviceData, DeviceParams, RegisterDeviceBody } from './devices.schemas';

const P = '/api/users/devices';

const present = ({ userId: _owner, ...d }: Device) => ({
  ...d,
  createdAt: d.createdAt.toISOString(),
  lastSeenAt: d.lastSeenAt.toISOString(),
});

/** Group C push devices of the caller (issue 37 item 1; docs/adr/0026). */
export function devicesRoutes(deps: IdentityDeps, authenticated: RequestHandler, docs: ApiDocs): Router {
  const router = Router();

  declareRoutes(router, docs, [
    {
      method: 'post',
      path: P,
      operationId: 'users.devices.register',
      summary:
        "Register the app's push token (idempotent: the same token again updates the device; a token another account holds moves to the caller; a 21st device replaces the least recently seen)",
      auth: 'access',
      body: RegisterDeviceBody,
      status: 201,
      response: z.object({ device: DeviceData }),
      errors: { 409: 'RES002 the same token is being registered by other accounts at this moment; retry' },
      example: { platform: 'ios', token: 'a'.repeat(64), appVersion: '3.2.1', locale: 'de-DE' },
      before: [authenticated],
      handler: async (req, res) => {
        const body = parseInput(RegisterDeviceBody, req.body ?? {});
        const device = await registerDevice(currentUser(res).sub, body, deps);
        sendSuccess(res, { device: present(device) }, { status: 201 });
      },
    },
    {
      method: 'get',
      path: P,
      operationId: 'users.devices.list',
      summary: "The caller's push devices (at most 20), most recently seen first",
      auth: 'access',
      response: z.object({ devices: z.array(DeviceData) }),
      before: [authenticated],
      handler: async (_req, res) => {
        const devices = await listDevices(currentUser(res).sub, deps);
        sendSuccess(res, { devices: devices.map(present) });
      },
    },
    {
      method: 'delete',
      path: `${P}/:deviceId`,
      operationId: 'users.devices.remove',
      summary: "Remove one of the caller's push devices (sign-out on the phone); no content",
      auth: 'access',
      params: DeviceParams,
      status: 204,
      errors: { 404: 'RES001 the caller has no device with this id' },
      before: [authenticated],
      handler: async (req, res) => {
        const { deviceId } = parseInput(DeviceParams, req.params);
        await removeDevice(currentUser(res).sub, deviceId, deps);
        res.status(204).end();
      },
    },
  ]);

  return router;
}
