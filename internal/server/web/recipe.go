package web

import (
	"net/http"

	"github.com/sparkdx/sparkdx/docs/recipes"
)

// recipePage shows a recipe (a path under docs/recipes, with an optional
// #section given as ?section=) from the recipes embedded in the binary, so
// that every finding on the app page links to what to do about it.
func (s *Pages) recipePage(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("path")
	if sec := r.URL.Query().Get("section"); sec != "" {
		ref += "#" + sec
	}
	text, err := recipes.Read(ref)
	if err != nil {
		s.errorPage(w, http.StatusNotFound, "No such recipe", err.Error())
		return
	}
	s.render(w, http.StatusOK, "recipe.html", map[string]any{"Title": "Recipe", "Ref": ref, "Text": text, "Live": false})
}
