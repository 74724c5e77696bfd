"""A contract type of import-linter's (``lint-imports``, CI) for the games: each child package of
``container`` that has a ``marker`` subpackage (``games/<game>/rules/``) is a game, found, never
named, so that adding a game changes no contract.

A game's package imports no other game, and of the site's own modules only those of
``may_import`` (the rules' protocol and the presentation's: ``games.engine``, the kit and the
catalog); nothing outside a game imports it: the site reaches a game through the catalog, by id
(a game's ``apps.py`` registers its kit there). A game's own tests (its subpackage ``tests``,
``games/<game>/tests/``) play it through the site, so they may import the site's modules too;
they import no other game either.

Written on import-linter's documented extension point for custom contract types
(``Contract``, ``ContractCheck``, ``fields``, ``output``) and grimp's public graph queries.
"""

from __future__ import annotations

from importlinter import Contract, ContractCheck, fields, output


class GamePackagesContract(Contract):
    type_name = "game_packages"

    container = fields.StringField()
    marker = fields.StringField()
    may_import = fields.ListField(subfield=fields.StringField())
    #: The subpackage of a game that holds its tests (exempt from ``may_import``).
    tests = fields.StringField(required=False, default="tests")

    def check(self, graph, verbose: bool) -> ContractCheck:
        container, marker = str(self.container), str(self.marker)
        allowed = tuple(str(name) for name in self.may_import)  # type: ignore[attr-defined]
        tests = str(self.tests)
        games = sorted(child for child in graph.find_children(container)
                       if f"{child}.{marker}" in graph.modules)
        problems: list[str] = []
        if not games:
            problems.append(f"no package of {container} has a {marker} subpackage")

        def inside(module: str, package: str) -> bool:
            return module == package or module.startswith(package + ".")

        for game in games:
            own = {game, *graph.find_descendants(game)}
            for module in sorted(own):
                for imported in sorted(graph.find_modules_directly_imported_by(module)):
                    if not inside(imported, container) or any(
                            inside(imported, game_) for game_ in [game]):
                        continue
                    if any(inside(imported, other) for other in games):
                        problems.append(f"{module} imports another game: {imported}")
                    elif not any(inside(imported, name) for name in allowed) and not inside(
                            module, f"{game}.{tests}"):
                        problems.append(f"{module} imports {imported}, which a game may not "
                                        f"(it may import {', '.join(allowed)})")
                for importer in sorted(graph.find_modules_that_directly_import(module)):
                    if not inside(importer, game):
                        problems.append(f"{importer} imports the game {game} ({module}): "
                                        "reach a game through the catalog, by id")
        return ContractCheck(kept=not problems, metadata={"problems": sorted(set(problems)),
                                                            "games": games})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for problem in check.metadata["problems"]:
            output.print_error(f"- {problem}")
            output.new_line()
