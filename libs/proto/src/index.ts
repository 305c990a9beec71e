export {
  loadPackage,
  loadPackageDefinition,
  PROTO_LOADER_OPTIONS,
  PROTO_ROOT,
  PROTO_FILES,
} from './load-package';
export type { LinguaProtoGrpcType } from './load-package';

// The root type of each .proto file, under a name that says which one.
export type { ProtoGrpcType as AiProto } from './generated/ai_service';
export type { ProtoGrpcType as CommonProto } from './generated/common';
export type { ProtoGrpcType as FlashcardsProto } from './generated/flashcards_service';
export type { ProtoGrpcType as HealthProto } from './generated/health';
export type { ProtoGrpcType as IdentityProto } from './generated/identity_service';
export type { ProtoGrpcType as SubscriptionsProto } from './generated/subscriptions_service';

// lingua.common.v1
export type { Money, Money__Output } from './generated/lingua/common/v1/Money';
export type { PageInfo, PageInfo__Output } from './generated/lingua/common/v1/PageInfo';
export type { PageRequest, PageRequest__Output } from './generated/lingua/common/v1/PageRequest';

// lingua.identity.v1
export type {
  IdentityServiceClient,
  IdentityServiceDefinition,
  IdentityServiceHandlers,
} from './generated/lingua/identity/v1/IdentityService';
export type { User, User__Output } from './generated/lingua/identity/v1/User';
export type { GetUserRequest, GetUserRequest__Output } from './generated/lingua/identity/v1/GetUserRequest';
export type {
  GetUserResponse,
  GetUserResponse__Output,
} from './generated/lingua/identity/v1/GetUserResponse';
export type {
  ResolveUserRequest,
  ResolveUserRequest__Output,
} from './generated/lingua/identity/v1/ResolveUserRequest';
export type {
  ResolveUserResponse,
  ResolveUserResponse__Output,
} from './generated/lingua/identity/v1/ResolveUserResponse';

// lingua.flashcards.v1
export type {
  FlashcardsServiceClient,
  FlashcardsServiceDefinition,
  FlashcardsServiceHandlers,
} from './generated/lingua/flashcards/v1/FlashcardsService';
export type {
  GetCardStatsRequest,
  GetCardStatsRequest__Output,
} from './generated/lingua/flashcards/v1/GetCardStatsRequest';
export type {
  GetCardStatsResponse,
  GetCardStatsResponse__Output,
} from './generated/lingua/flashcards/v1/GetCardStatsResponse';

// lingua.subscriptions.v1
export type {
  EntitlementsServiceClient,
  EntitlementsServiceDefinition,
  EntitlementsServiceHandlers,
} from './generated/lingua/subscriptions/v1/EntitlementsService';
export type {
  CheckFeatureAccessRequest,
  CheckFeatureAccessRequest__Output,
} from './generated/lingua/subscriptions/v1/CheckFeatureAccessRequest';
export type {
  CheckFeatureAccessResponse,
  CheckFeatureAccessResponse__Output,
} from './generated/lingua/subscriptions/v1/CheckFeatureAccessResponse';
export type {
  GetEntitlementsRequest,
  GetEntitlementsRequest__Output,
} from './generated/lingua/subscriptions/v1/GetEntitlementsRequest';
export type {
  GetEntitlementsResponse,
  GetEntitlementsResponse__Output,
} from './generated/lingua/subscriptions/v1/GetEntitlementsResponse';

// lingua.ai.v1
export type {
  LanguageServiceClient,
  LanguageServiceDefinition,
  LanguageServiceHandlers,
} from './generated/lingua/ai/v1/LanguageService';
export type {
  GetWordLevelRequest,
  GetWordLevelRequest__Output,
} from './generated/lingua/ai/v1/GetWordLevelRequest';
export type {
  GetWordLevelResponse,
  GetWordLevelResponse__Output,
} from './generated/lingua/ai/v1/GetWordLevelResponse';
export type {
  GetInflectionsRequest,
  GetInflectionsRequest__Output,
} from './generated/lingua/ai/v1/GetInflectionsRequest';
export type {
  GetInflectionsResponse,
  GetInflectionsResponse__Output,
} from './generated/lingua/ai/v1/GetInflectionsResponse';
export type { FillBlankRequest, FillBlankRequest__Output } from './generated/lingua/ai/v1/FillBlankRequest';
export type {
  FillBlankResponse,
  FillBlankResponse__Output,
} from './generated/lingua/ai/v1/FillBlankResponse';

// grpc.health.v1
export type { HealthClient, HealthDefinition, HealthHandlers } from './generated/grpc/health/v1/Health';
export type {
  HealthCheckRequest,
  HealthCheckRequest__Output,
} from './generated/grpc/health/v1/HealthCheckRequest';
export type {
  HealthCheckResponse,
  HealthCheckResponse__Output,
} from './generated/grpc/health/v1/HealthCheckResponse';
export type { _grpc_health_v1_HealthCheckResponse_ServingStatus__Output as HealthServingStatus } from './generated/grpc/health/v1/HealthCheckResponse';
