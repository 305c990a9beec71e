// Telemetry first: the SDK must run before anything creates spans.
import '@lingua/telemetry/register';
import { runMain } from '@lingua/bootstrap';
import { loadServiceConfig } from './config';
import { defineAiService } from './start';

void runMain(() => defineAiService(loadServiceConfig()));
