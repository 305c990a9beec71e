// Imported first by every main.ts: the SDK must be running before any span is created.
import { startTelemetry } from './start-telemetry';

const telemetry = startTelemetry(process.env.OTEL_SERVICE_NAME ?? process.env.SERVICE_NAME ?? 'lingua');
process.once('beforeExit', () => void telemetry.shutdown());
