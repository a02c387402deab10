// Imported first by the entry, so it runs before selenium-webdriver loads: without these its
// driver manager reaches for the internet (statistics, browser metadata).
process.env.SE_OFFLINE = 'true';
process.env.SE_AVOID_STATS = 'true';
