import { getCurrentTimeTool } from './get-current-time.js';
import { resolveDateTool } from './resolve-date.js';
import { resolveTimeRangeTool } from './resolve-time-range.js';

;
;
;
export {
  describeNow,
  
  formatTimeContextLine,
  
} from './time-context.js';

/**
 * The tools the orchestrator offers the planner so it resolves dates before writing a plan
 * (UT-1). None of them changes anything.
 */
export const utilityTools = [resolveDateTool, resolveTimeRangeTool, getCurrentTimeTool] as const;
