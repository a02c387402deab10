import { global } from './global.js';

/** A flow document may be PUT as YAML text, the form people write it in; JSON is Fastify's own. */
export const yamlBodies = global(async (app) => {
  app.addContentTypeParser(
    ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'],
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, body);
    },
  );
});
