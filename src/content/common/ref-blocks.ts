import type { BlockType } from "../../db/schema";

/**
 * The reference block types: the course tree's rules about them live in courses/references.ts;
 * the list lives here because the access paths to referenced objects (ref-access.ts) read it too
 * (docs/decisions/content-layers.md, "Reference block types").
 */
export const REF_BLOCK_TYPES = ["quiz_ref", "assignment_ref", "exam_ref"] as const satisfies readonly BlockType[];
export type RefBlockType = (typeof REF_BLOCK_TYPES)[number];
