/**
 * The admin API's answer shapes, where the routes and the page find them: declared once in
 * src/admin/schemas.ts, next to the services that fill them.
 */
export * from '../../admin/schemas.js';
