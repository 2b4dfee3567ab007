import { getCurrentTimeTool } from './get-current-time.js';
import { resolveDateTool } from './resolve-date.js';
import { resolveTimeRangeTool } from './resolve-time-range.js';

export { getCurrentTimeTool } from './get-current-time.js';
export { describeResolvedDay, normalizeDateExpression, resolveDateTool, resolveDay, type ResolvedDate } from './resolve-date.js';
export type { DayResolution, ResolveDayOptions, ResolvedDay } from './resolved-day.js';
export { resolveWeekday } from './weekday-rules.js';
export {
  createResolveTimeRangeTool,
  describeTimeRange,
  resolveTimeRange,
  resolveTimeRangeTool,
  type ResolvedTimeRange,
  type TimeRangeOptions,
  type TimeRangeResolution,
} from './resolve-time-range.js';
export {
  describeNow,
  formatIsoWithOffset,
  formatTimeContextLine,
  type TimeContext,
} from './time-context.js';

/**
 * The tools the orchestrator offers the planner so it resolves dates before writing a plan
 * (UT-1). None of them changes anything.
 */
export const utilityTools = [resolveDateTool, resolveTimeRangeTool, getCurrentTimeTool] as const;
