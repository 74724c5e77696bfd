"""The site's pages for games: lobby, create, the table, the rules, profiles."""
