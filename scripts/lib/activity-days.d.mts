/** Types of activity-days.mjs, for the test helpers that write activity rows directly. */
export function activityDaysStatements(tenantId: string, options?: { studentId?: string }): string[];
export function activityDaysSql(tenantId: string, options?: { studentId?: string }): string;
