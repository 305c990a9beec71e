import path from 'node:path';
import { loadPackageDefinition as loadGrpcPackage } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType as AiProto } from './generated/ai_service';
import type { ProtoGrpcType as CommonProto } from './generated/common';
import type { ProtoGrpcType as FlashcardsProto } from './generated/flashcards_service';
import type { ProtoGrpcType as HealthProto } from './generated/health';
import type { ProtoGrpcType as IdentityProto } from './generated/identity_service';
import type { ProtoGrpcType as SubscriptionsProto } from './generated/subscriptions_service';

/**
 * The one set of loader options of the system. scripts/gen.sh passes the same flags to the type
 * generator, so the generated types describe exactly the objects these options produce:
 * snake_case fields, int64 as decimal strings, enums as their names, defaults filled in, and the
 * name of the set field on each oneof.
 */
export const PROTO_LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const satisfies Options;

/** The repo-root proto/ folder; the same three levels up from src/ (jest) and from dist/ (runtime). */
export const PROTO_ROOT = path.resolve(__dirname, '../../../proto');

/** Every file loadPackage() reads, relative to PROTO_ROOT. A test keeps this in step with the folder. */
export const PROTO_FILES = [
  'grpc/health/v1/health.proto',
  'lingua/ai/v1/ai_service.proto',
  'lingua/common/v1/common.proto',
  'lingua/flashcards/v1/flashcards_service.proto',
  'lingua/identity/v1/identity_service.proto',
  'lingua/subscriptions/v1/subscriptions_service.proto',
] as const;

/** Each generated file types only its own package; together they type the whole loaded tree. */
export type LinguaProtoGrpcType = AiProto &
  CommonProto &
  FlashcardsProto &
  HealthProto &
  IdentityProto &
  SubscriptionsProto;

let loaded: LinguaProtoGrpcType | undefined;
let definition: PackageDefinition | undefined;

/** The parsed .proto files (with their file descriptors), as server reflection needs them. Parsed once. */
export function loadPackageDefinition(): PackageDefinition {
  definition ??= loadSync([...PROTO_FILES], { ...PROTO_LOADER_OPTIONS, includeDirs: [PROTO_ROOT] });
  return definition;
}

/**
 * Loads every Lingua .proto (and the standard health service) into service constructors and message
 * definitions, e.g. `loadPackage().lingua.identity.v1.IdentityService`. Parsed once per process:
 * servers and clients of one service share the same definitions.
 */
export function loadPackage(): LinguaProtoGrpcType {
  if (loaded === undefined) {
    loaded = loadGrpcPackage(loadPackageDefinition()) as unknown as LinguaProtoGrpcType;
  }
  return loaded;
}
