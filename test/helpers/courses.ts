import { and, asc, eq, isNull } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { BlockType } from "../../src/db/schema";
import { uuidv7 } from "../../src/core/lib/ids";
import { db } from "./factories";

/**
 * Course trees written straight to D1, for tests of the readers and of the rules that need a tree
 * in place (the authoring endpoints have their own tests). Blocks default to `text` with a small
 * payload; `shape` gives modules × lessons × blocks.
 */
export interface TreeOptions {
  status?: "draft" | "published";
  title?: string;
  slug?: string;
  sequential?: boolean;
  /** [modules, lessons per module, blocks per lesson]. Default [1, 1, 1]. */
  shape?: [number, number, number];
  blockType?: BlockType;
  payload?: Record<string, unknown>;
  refId?: string | null;
}

export interface Tree {
  courseId: string;
  modules: { id: string; lessons: { id: string; blocks: string[] }[] }[];
  /** Every block id in course order. */
  blockIds: string[];
  lessonIds: string[];
}

let slugCounter = 0;

export async function insertCourseTree(tenantId: string, options: TreeOptions = {}): Promise<Tree> {
  const now = Date.now();
  const [moduleCount, lessonCount, blockCount] = options.shape ?? [1, 1, 1];
  const courseId = uuidv7();
  const slug = options.slug ?? `course-${Date.now().toString(36)}-${(slugCounter++).toString(36)}`;
  await db()
    .insert(schema.courses)
    .values({
      id: courseId,
      tenantId,
      title: options.title ?? `Course ${slug}`,
      slug,
      description: "",
      status: options.status ?? "published",
      sequentialRequired: options.sequential ?? false,
      position: 0,
      createdAt: now,
      updatedAt: now,
    });
  const tree: Tree = { courseId, modules: [], blockIds: [], lessonIds: [] };
  const moduleRows: (typeof schema.courseModules.$inferInsert)[] = [];
  const lessonRows: (typeof schema.lessons.$inferInsert)[] = [];
  const blockRows: (typeof schema.blocks.$inferInsert)[] = [];
  for (let m = 0; m < moduleCount; m++) {
    const moduleId = uuidv7();
    moduleRows.push({ id: moduleId, tenantId, courseId, title: `Module ${m + 1}`, description: "", position: m, createdAt: now, updatedAt: now });
    const module = { id: moduleId, lessons: [] as { id: string; blocks: string[] }[] };
    for (let l = 0; l < lessonCount; l++) {
      const lessonId = uuidv7();
      lessonRows.push({ id: lessonId, tenantId, courseId, moduleId, title: `Lesson ${m + 1}.${l + 1}`, position: l, createdAt: now, updatedAt: now });
      const lesson = { id: lessonId, blocks: [] as string[] };
      for (let b = 0; b < blockCount; b++) {
        const blockId = uuidv7();
        blockRows.push({
          id: blockId,
          tenantId,
          courseId,
          moduleId,
          lessonId,
          type: options.blockType ?? "text",
          payload: options.payload ?? { html: `<p>Block ${m + 1}.${l + 1}.${b + 1}</p>` },
          refId: options.refId ?? null,
          position: b,
          createdAt: now,
          updatedAt: now,
        });
        lesson.blocks.push(blockId);
        tree.blockIds.push(blockId);
      }
      module.lessons.push(lesson);
      tree.lessonIds.push(lessonId);
    }
    tree.modules.push(module);
  }
  // D1 takes 100 bound parameters per statement: insert in slices.
  const insertAll = async <T extends object>(table: Parameters<ReturnType<typeof db>["insert"]>[0], rows: T[], perRow: number) => {
    const size = Math.max(1, Math.floor(99 / perRow));
    for (let start = 0; start < rows.length; start += size) await db().insert(table).values(rows.slice(start, start + size) as never);
  };
  await insertAll(schema.courseModules, moduleRows, 8);
  await insertAll(schema.lessons, lessonRows, 9);
  await insertAll(schema.blocks, blockRows, 11);
  return tree;
}

/** A direct enrollment row with its source, as `POST /courses/:id/enroll` leaves it. */
export async function insertEnrollment(tenantId: string, courseId: string, studentId: string, options: { enrolledAt?: number; totalBlocks?: number } = {}) {
  const now = options.enrolledAt ?? Date.now();
  const id = uuidv7();
  await db()
    .insert(schema.enrollments)
    .values({ id, tenantId, courseId, studentId, enrolledAt: now, enrolledBy: null, totalBlocks: options.totalBlocks ?? 0, createdAt: now, updatedAt: now });
  await db()
    .insert(schema.enrollmentSources)
    .values({ tenantId, enrollmentId: id, courseId, studentId, kind: "direct", groupId: null, sourceKey: "direct", createdBy: null, createdAt: now });
  return id;
}

/** A group access source on an enrollment (what the groups area writes when a group is enrolled). */
export async function insertGroupSource(tenantId: string, enrollmentId: string, courseId: string, studentId: string, groupId: string) {
  await db()
    .insert(schema.enrollmentSources)
    .values({ tenantId, enrollmentId, courseId, studentId, kind: "group", groupId, sourceKey: `group:${groupId}`, createdBy: null, createdAt: Date.now() });
}

/** An ISO 8601 UTC timestamp as the API renders them. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A fresh signed download link of the media asset. */
export const MEDIA_LINK = (id: string) => new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${id}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`);

/** The ids of the live rows of a course-tree table under one parent, in position order. */
export async function liveIdsUnder(table: typeof schema.courseModules | typeof schema.lessons | typeof schema.blocks, parent: "courseId" | "moduleId" | "lessonId", parentId: string) {
  const column = (table as unknown as Record<string, import("drizzle-orm/sqlite-core").SQLiteColumn>)[parent]!;
  const rows = await db()
    .select({ id: table.id })
    .from(table)
    .where(and(eq(column, parentId), isNull(table.deletedAt)))
    .orderBy(asc(table.position), asc(table.id));
  return rows.map((row) => row.id);
}

/** The student's enrollment in the course (active or removed), if any. */
export async function enrollmentOf(courseId: string, studentId: string) {
  const [row] = await db()
    .select()
    .from(schema.enrollments)
    .where(and(eq(schema.enrollments.courseId, courseId), eq(schema.enrollments.studentId, studentId)));
  return row;
}

/** The student's access-source keys on the course, sorted. */
export async function sourceKeys(courseId: string, studentId: string) {
  const rows = await db()
    .select({ key: schema.enrollmentSources.sourceKey })
    .from(schema.enrollmentSources)
    .where(and(eq(schema.enrollmentSources.courseId, courseId), eq(schema.enrollmentSources.studentId, studentId)));
  return rows.map((row) => row.key).sort();
}
