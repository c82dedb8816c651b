import { z } from "@hono/zod-openapi";
import { offsetQuery, uuidParam } from "../../core/http/pagination";

/** Students per add or remove request (the contract's limit). */
export const MEMBER_IDS_CAP = 500;

// ---------------------------------------------------------------------------------------------
// Requests

export const GroupIdParams = z.object({ id: uuidParam });

export const ListMembersQuery = z.object(offsetQuery({ maxLimit: 200, defaultLimit: 50 }));

/**
 * The service checks the count before each id's format, so an empty list answers
 * `empty_member_list` and more than 500 ids `too_many_members` whatever they contain.
 */
const studentIds = z
  .array(z.string().openapi({ format: "uuid" }))
  .openapi({ description: `1 to ${MEMBER_IDS_CAP} student ids; none answers 400 empty_member_list, more answers 400 too_many_members` });

export const AddMembersBody = z.object({ student_ids: studentIds }).openapi("AddGroupMembersRequest");

export const RemoveMembersBody = z.object({ student_ids: studentIds }).openapi("RemoveGroupMembersRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const GroupMember = z
  .object({
    membership_id: z.string().openapi({
      format: "uuid",
      description: "Stable id of this membership: the name-based UUID (version 5) of the student id in the group id's namespace",
    }),
    student_id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    is_active: z.boolean(),
    joined_at: z.string(),
  })
  .openapi("GroupMember");

export const GroupMemberList = z
  .object({
    members: z.array(GroupMember),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("GroupMemberList");

export const AddMembersResult = z
  .object({
    added: z.array(z.string()),
    skipped: z.array(z.object({ student_id: z.string(), reason: z.enum(["already_member", "user_not_found", "wrong_tenant"]) })),
  })
  .openapi("AddGroupMembersResult");

export const RemoveMembersResult = z.object({ removed: z.literal(true) }).openapi("RemoveGroupMembersResult");
