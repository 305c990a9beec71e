import type { AccessTokens, AssertionVerifier, Clock, TokenBlacklist } from '@lingua/auth';
import type { Logger } from '@lingua/logger';
import type { IdentityFeatureConfig } from '../config';
import type {
  AccountMailBudget,
  AppleTokens,
  IdentityProviders,
  LoginAttemptsStore,
  OneTimeTokenRepository,
  RefreshFamilyRepository,
  SocialIdentityRepository,
  UserRepository,
} from './ports';
import type { AvatarStore } from './avatar-store';
import type { DeviceStore } from './devices.use-case';
import type { AccountErasureStore } from './erase-account.use-case';
import type { PasswordHasher } from './password-hasher';
import type { CardStatsSource } from './profile.use-case';

/** Everything the use cases need, injected (tests pass a TestClock and real stores). */
export interface IdentityDeps {
  config: IdentityFeatureConfig;
  clock: Clock;
  logger: Logger;
  users: UserRepository;
  families: RefreshFamilyRepository;
  oneTimeTokens: OneTimeTokenRepository;
  socialIdentities: SocialIdentityRepository;
  attempts: LoginAttemptsStore;
  /** Account e-mails (reset, verification) per address. */
  mailBudget: AccountMailBudget;
  accessTokens: AccessTokens;
  /** The gateway's assertions for identity: who calls (identity signs client tokens, never trusts them directly). */
  assertions: AssertionVerifier;
  /** Revocations: in the database first, then Redis (which the gateway and services read). */
  blacklist: TokenBlacklist;
  hasher: PasswordHasher;
  providers: IdentityProviders;
  avatars: AvatarStore;
  /** Push devices (APNs / FCM tokens) of each user. */
  devices: DeviceStore;
  /** Deleted accounts whose clean-up is not finished (resumed by the pending-erasures sweeper). */
  erasures: AccountErasureStore;
  cardStats: CardStatsSource;
  /** Apple's token endpoints; absent when no Sign in with Apple key is configured. */
  apple?: AppleTokens | undefined;
  /** Publishes staged events right after the write. */
  kickOutbox(): void;
}
