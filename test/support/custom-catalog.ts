/** A team's own catalog for the catalog and drift tests: the live catalog extended by a German voice and a house LLM. */
export const CUSTOM_CATALOG_YAML = `# A team's own catalog
merge: extend
voices:
  - id: 9001
    name: Mina
    language_id: 5
    gender: female
    preview_url: https://voices.example.test/mina.mp3
    accent: Bavarian
    age: young
    synthesizer_provider_id: 3
models:
  llm:
    - id: 40
      name: House LLM
`;
