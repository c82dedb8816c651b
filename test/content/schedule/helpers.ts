import { as, type Member } from "../../helpers/users";

/** Window bodies relative to now: `days(-1)` is yesterday. */
export const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();

export interface WindowBody {
  starts_at?: string | null;
  ends_at?: string | null;
  allow_before_start?: boolean;
  allow_after_end?: boolean;
}

type Level = "courses" | "modules" | "lessons";

export const getWindow = (member: Member, level: Level, id: string) => as(member, `/t/${level}/${id}/schedule`);
export const putWindow = (member: Member, level: Level, id: string, body: WindowBody) => as(member, `/t/${level}/${id}/schedule`, { method: "PUT", body });
export const clearWindow = (member: Member, level: Level, id: string) => as(member, `/t/${level}/${id}/schedule`, { method: "DELETE" });

export interface GridNode {
  course_id: string;
  level: "course" | "module" | "lesson";
  module_id?: string | null;
  lesson_id?: string | null;
}

export const getGroupGrid = (member: Member, groupId: string, courseId: string) => as(member, `/t/groups/${groupId}/course-schedule?course_id=${courseId}`);
export const putGroupWindow = (member: Member, groupId: string, node: GridNode, window: WindowBody) =>
  as(member, `/t/groups/${groupId}/course-schedule`, { method: "PUT", body: { ...node, window } });
export const clearGroupWindow = (member: Member, groupId: string, node: GridNode) =>
  as(member, `/t/groups/${groupId}/course-schedule`, { method: "DELETE", body: node });
