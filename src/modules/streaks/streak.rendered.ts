import type { PageArguments } from '../common/pagination.js';
import { connectionRoot, objectRoot, type RootFieldRenderer } from '../common/rendered-read.js';
import { findStreak, listStreaks } from './streak.service.js';

/** The root fields of the streaks module that a rendered read answers, through the resolvers' own service calls. */
export const STREAK_ROOT_RENDERERS: Record<string, RootFieldRenderer> = {
  streak: objectRoot((ctx, args, plan) => findStreak(ctx, args.id as string, plan)),
  streaks: connectionRoot((ctx, args, plan) => listStreaks(ctx, args as PageArguments, plan)),
};
