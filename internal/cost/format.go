package cost

import "fmt"

// String says a usage the way every view does (analyze's text and HTML,
// serve's pages): "1.25 core-h · 4.8 GB-h", then its money when priced.
func (u Usage) String() string {
	s := u.Hours()
	if u.Money != nil {
		s += " · " + FormatMoney(*u.Money)
	}
	return s
}

// FormatHours keeps three significant digits: a short app holds a few
// thousandths of a core-hour.
func FormatHours(h float64) string {
	switch {
	case h == 0:
		return "0"
	case h < 0.01:
		return fmt.Sprintf("%.4f", h)
	case h < 10:
		return fmt.Sprintf("%.3g", h)
	}
	return fmt.Sprintf("%.0f", h)
}

// FormatMoney prints money without a currency: the prices are the user's.
func FormatMoney(m float64) string {
	if m < 0.01 && m > 0 {
		return fmt.Sprintf("%.4f", m)
	}
	return fmt.Sprintf("%.2f", m)
}

// Short is the usage in a list's column: its money when priced, else its
// hours.
func (u Usage) Short() string {
	if u.Money != nil {
		return FormatMoney(*u.Money)
	}
	return u.Hours()
}

// Hours is the usage's hours: "1.25 core-h · 4.8 GB-h".
func (u Usage) Hours() string {
	return fmt.Sprintf("%s core-h · %s GB-h", FormatHours(u.CoreHours), FormatHours(u.MemoryGBHours))
}
