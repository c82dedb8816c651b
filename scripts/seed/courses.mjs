import { upsert } from "../lib/sql.mjs";
import { DEMO, id } from "./demo.mjs";

/** The demo course tree, the draft course, and the learning path with its schedule window. */

export const COURSE = {
  id: id(0xc01),
  draftId: id(0xc02),
  modules: [id(0xc11), id(0xc12)],
  draftModule: id(0xc13),
  lessons: [id(0xc21), id(0xc22), id(0xc23), id(0xc24)],
};

/**
 * The published demo course: two modules, four lessons and a block of every manual type (the
 * image and pdf blocks show the seeded uploads), plus a draft course staff see and students do not.
 */
export function courseBlocks() {
  const [welcome, handbook, watch, wrapUp] = COURSE.lessons;
  const block = (n, lesson, position, type, payload, refId = null) => ({ id: id(0xd00 + n), lesson, position, type, payload, refId });
  return [
    block(1, welcome, 0, "text", { html: "<p>Welcome to <strong>Demo School</strong>! Work through the blocks in order.</p>" }),
    block(2, welcome, 1, "image", { media_asset_id: DEMO.logoAssetId, caption: "Our school logo" }, DEMO.logoAssetId),
    block(3, welcome, 2, "video", { url: "https://www.w3schools.com/html/mov_bbb.mp4" }),
    block(4, handbook, 0, "pdf", { media_asset_id: DEMO.handoutAssetId }, DEMO.handoutAssetId),
    block(5, handbook, 1, "file", { media_asset_id: DEMO.handoutAssetId, title: "Handout (download)" }, DEMO.handoutAssetId),
    block(6, watch, 0, "embed", { url: "https://www.youtube-nocookie.com/embed/aqz-KE-bpKQ", title: "Big Buck Bunny" }),
    block(7, watch, 1, "text", { html: "<h2>Notes</h2><ul><li>Pause when you need to.</li><li>Take notes.</li></ul>" }),
    block(8, wrapUp, 0, "text", { html: "<p>Well done. Mark this block complete to finish the course.</p>" }),
  ];
}

export function courses({ now }) {
  const live = { restore: ["tenant_id", "deleted_at"], touch: "updated_at" };
  const statements = [
    upsert(
      "courses",
      {
        id: COURSE.id,
        tenant_id: DEMO.tenantId,
        title: "Getting Started at Demo School",
        slug: "getting-started",
        description: "<p>A short tour of how courses work: text, images, video, documents and embedded pages.</p>",
        status: "published",
        sequential_required: false,
        position: 0,
        cover_image_id: DEMO.logoAssetId,
        created_by: DEMO.admin.id,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "slug", "status", "deleted_at"], touch: "updated_at" },
    ),
    upsert(
      "courses",
      {
        id: COURSE.draftId,
        tenant_id: DEMO.tenantId,
        title: "Advanced Topics (draft)",
        slug: "advanced-topics",
        description: "<p>Being written: staff see it, students do not.</p>",
        status: "draft",
        sequential_required: true,
        position: 1,
        cover_image_id: null,
        created_by: DEMO.admin.id,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "slug", "deleted_at"], touch: "updated_at" },
    ),
  ];
  const modules = [
    { id: COURSE.modules[0], course: COURSE.id, title: "Module 1: The basics", position: 0 },
    { id: COURSE.modules[1], course: COURSE.id, title: "Module 2: Going further", position: 1 },
    { id: COURSE.draftModule, course: COURSE.draftId, title: "Outline", position: 0 },
  ];
  for (const module of modules) {
    statements.push(
      upsert(
        "course_modules",
        { id: module.id, tenant_id: DEMO.tenantId, course_id: module.course, title: module.title, description: "", position: module.position, cover_image_id: null, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  const lessons = [
    { id: COURSE.lessons[0], module: COURSE.modules[0], title: "Welcome", position: 0 },
    { id: COURSE.lessons[1], module: COURSE.modules[0], title: "The handbook", position: 1 },
    { id: COURSE.lessons[2], module: COURSE.modules[1], title: "Watch and read", position: 0 },
    { id: COURSE.lessons[3], module: COURSE.modules[1], title: "Wrap-up", position: 1 },
  ];
  for (const lesson of lessons) {
    statements.push(
      upsert(
        "lessons",
        { id: lesson.id, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: lesson.module, title: lesson.title, position: lesson.position, screenshot_protection_enabled: lesson.position === 1, cover_image_id: null, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  const moduleOf = Object.fromEntries(lessons.map((lesson) => [lesson.id, lesson.module]));
  for (const b of courseBlocks()) {
    statements.push(
      upsert(
        "blocks",
        { id: b.id, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: moduleOf[b.lesson], lesson_id: b.lesson, type: b.type, payload: JSON.stringify(b.payload), ref_id: b.refId, position: b.position, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  return statements;
}

const PATH = { id: id(0x1201), courseWindow: id(0x1211) };

/**
 * A published learning path "Start here": the demo course, then the draft course (students see
 * only published courses of a path, so the second step appears once it is published), and a date
 * window on the demo course that closes at the end of 2030 (students see `available_until`).
 */
export function paths({ now }) {
  const statements = [
    upsert(
      "learning_paths",
      { id: PATH.id, tenant_id: DEMO.tenantId, title: "Start here", description: "<p>The first courses every new student takes, in order.</p>", status: "published", created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null },
      { restore: ["tenant_id", "status", "deleted_at"], touch: "updated_at" },
    ),
    ...[COURSE.id, COURSE.draftId].map((courseId, position) =>
      upsert("learning_path_courses", { tenant_id: DEMO.tenantId, path_id: PATH.id, course_id: courseId, position, created_at: now }, { key: ["path_id", "course_id"], restore: ["position"] }),
    ),
    upsert(
      "schedule_windows",
      {
        id: PATH.courseWindow, tenant_id: DEMO.tenantId, course_id: COURSE.id, group_id: null, grid_key: "", level: "course", module_id: null, lesson_id: null, node_id: COURSE.id,
        starts_at: null, ends_at: Date.parse("2030-12-31T18:59:59Z"), allow_before_start: false, allow_after_end: false, created_at: now, updated_at: now, deleted_at: null,
      },
      { restore: ["tenant_id", "deleted_at"] },
    ),
  ];
  return statements;
}
