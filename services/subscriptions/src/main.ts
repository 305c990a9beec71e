// Telemetry first: the SDK must run before anything creates spans.
import '@lingua/telemetry/register';
import { runMain } from '@lingua/bootstrap';
import { loadServiceConfig } from './config';
import { defineSubscriptionsService } from './start';

void runMain(() => defineSubscriptionsService(loadServiceConfig()));
