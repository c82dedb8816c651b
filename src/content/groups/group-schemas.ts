import { z } from "@hono/zod-openapi";
import { mediaReference, plainText, searchTerm, uuidField } from "../../core/http/fields";
import { offsetQuery } from "../../core/http/pagination";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const GROUP_NAME_MAX = 120;

/**
 * The contract gives a name of the wrong length its own identifier (`group_name_required`), so the
 * schema checks only what makes it text; the service checks 1-120 after trimming.
 */
const name = plainText({ max: Number.MAX_SAFE_INTEGER }).openapi({
  type: "string",
  minLength: 1,
  maxLength: GROUP_NAME_MAX,
  example: "Morning group",
  description: "1-120 characters after trimming; an empty or longer name is 400 `group_name_required`",
});
const description = plainText({ max: 2000, multiline: true }).openapi({ description: "Plain text, at most 2000 characters" });
const logoReference = mediaReference();
/** Null or an empty string: no logo. */
const logo = z
  .union([z.null(), z.string().trim().max(0).transform(() => null), logoReference])
  .openapi({
    type: ["string", "null"],
    example: "https://cdn.example.com/group.png",
    description: "A confirmed image of the school (media-asset UUID) or a public https image URL; null or an empty string for none",
  });

// ---------------------------------------------------------------------------------------------
// Requests

export const ListGroupsQuery = z.object({
  q: searchTerm(120).openapi({ description: "Search in the name; `%` and `_` match themselves" }),
  ...offsetQuery({ maxLimit: 200, defaultLimit: 50 }),
});

export const CreateGroupBody = z
  .object({
    name,
    description: description.optional(),
    logo: logo.optional(),
  })
  .openapi("CreateGroupRequest");

export const UpdateGroupBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    logo: logo.optional().openapi({ description: "An empty string (or null) removes the logo" }),
  })
  .openapi("UpdateGroupRequest");

export const SetGroupCuratorBody = z
  .object({
    curator_id: uuidField.nullable().openapi({ description: "A live, active curator of the school; null removes the group's curator" }),
  })
  .openapi("SetGroupCuratorRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const Group = z
  .object({
    id: uuid,
    name: z.string(),
    description: z.string(),
    logo: z.string().nullable().openapi({ description: "As stored: a media-asset UUID or a URL" }),
    logo_url: z.string().nullable().openapi({ description: "A ready link (a fresh signed link for an asset); null without a logo" }),
    created_by: uuid.nullable(),
    curator_id: uuid.nullable(),
    curator_first_name: z.string().nullable(),
    curator_last_name: z.string().nullable(),
    curator_email: z.string().nullable(),
    member_count: z.number().int().openapi({ description: "Members who are live students" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("Group");

export const GroupList = z
  .object({
    groups: z.array(Group),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("GroupList");

export const UserGroups = z
  .object({
    groups: z.array(
      z.object({
        group_id: uuid,
        name: z.string(),
        description: z.string(),
        joined_at: timestamp,
      }),
    ),
  })
  .openapi("UserGroups");
