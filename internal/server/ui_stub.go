package server

import "net/http"

func (s *Server) uiRoutes(m *http.ServeMux) {}
